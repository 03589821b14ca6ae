import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A Redis that is connected but does not answer (stopped with SIGSTOP: the socket stays
// open, commands are written and no reply comes) fails paid requests closed within the
// command timeout (RedisConnection.send's own timer), and the gateway serves again as soon
// as Redis answers, without a restart.

describe('a stalled Redis', { skip: redisUnavailable() ?? false }, () => {
  let redis: RedisServer;
  let gw: TestGateway;
  let pid: number;
  before(async () => {
    redis = await startRedis();
    const conn = new RedisConnection({ url: redis.url });
    await conn.connect();
    pid = Number(/process_id:(\d+)/.exec(await conn.send<string>(['INFO', 'server']))![1]);
    await conn.close();
    gw = await startTestGateway({ redis: { url: redis.url } });
  });
  after(async () => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
    await gw?.close();
    await redis?.stop();
  });

  test('a request while Redis does not answer is refused with 503 shared_state_unavailable; once it answers, served', async () => {
    const ask = () =>
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'switchyard/sim-pro', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
        { authorization: `Bearer ${gw.key}` },
      );
    assert.equal((await ask()).status, 200);
    process.kill(pid, 'SIGSTOP');
    let refused;
    try {
      refused = await ask();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, 'shared_state_unavailable');
    const served = await ask();
    assert.equal(served.status, 200, served.text);
  });
});
