import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { RedisScript } from '../../src/shared/redis/redis-script.ts';
import { redisUnavailable, startRedis } from '../support/redis-server.ts';

// A script's first run on a connection keeps its place among the commands sent after it:
// a run not awaited (a sticky route remembered after an answer) is done before the next
// command (the next turn's lookup), and so again after Redis forgot its scripts.

test(
  'a script run not awaited is done before the next command, on its first run and after SCRIPT FLUSH',
  { skip: redisUnavailable() ?? false, timeout: 20_000 },
  async () => {
    const redis = await startRedis();
    const conn = new RedisConnection({ url: redis.url });
    await conn.connect();
    try {
      const script = new RedisScript(`redis.call('SET', KEYS[1], ARGV[1]) return 1`);
      const first = script.run(conn, ['k1'], ['one']);
      assert.equal(await conn.send(['GET', 'k1']), 'one', 'the first run, sent whole, went before the GET');
      await first;
      assert.equal(await script.run(conn, ['k2'], ['two']), 1);
      await conn.send(['SCRIPT', 'FLUSH']);
      assert.equal(await script.run(conn, ['k3'], ['three']), 1, 'NOSCRIPT: sent whole again');
      assert.equal(await conn.send(['GET', 'k3']), 'three');
    } finally {
      await conn.close();
      await redis.stop();
    }
  },
);
