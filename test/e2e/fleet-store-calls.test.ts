import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { postJson, startTestGateway } from '../support/test-gateway.ts';

// What a fleet instance asks of Redis per request (docs/benchmarks.md, "Workers and the
// fleet"), counted by Redis itself: INFO commandstats on a redis-server of this file's own.
// (The settlement's Postgres statements per batch are counted in
// test/shared-state/postgres-settlement.test.ts.)

function yaml(emu: OpenAIChatEmulator): string {
  const endpoint = (p: string) => `      - provider: ${p}
        model: up-${p}
        pricing: { prompt: "0.000002", completion: "0.000008", cache_read: "0.0000005" }`;
  return `sim: false
providers:
  - id: east
    kind: openai
    base_url: ${emu.baseUrl}
  - id: west
    kind: openai
    base_url: ${emu.baseUrl}
models:
  - id: acme/two
    name: Two
    context_length: 64000
    endpoints:
${endpoint('east')}
${endpoint('west')}
  - id: acme/one
    name: One
    context_length: 64000
    endpoints:
${endpoint('east')}
`;
}

async function commandCalls(conn: RedisConnection): Promise<Map<string, number>> {
  const text = await conn.send<string>(['INFO', 'commandstats']);
  return new Map([...text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** A conversation of `n` messages after the system prompt: n + 1 prefixes to look up (capped at 33). */
function conversation(n: number): Array<{ role: string; content: string }> {
  // Long enough for a provider to cache (≥ 64 tokens): shorter prompts are not looked up (sticky-routing.ts).
  const messages = [
    { role: 'system', content: `You are terse. ${'Answer in as few words as you can, and never repeat the question. '.repeat(8)}` },
  ];
  for (let i = 0; i < n; i++) messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i}` });
  return messages;
}

describe('sticky routing on Redis: one command per lookup', { skip: redisUnavailable() ?? false }, () => {
  let redis: RedisServer;
  let emu: OpenAIChatEmulator;
  before(async () => {
    redis = await startRedis();
    emu = await startOpenAIChatEmulator({ promptCache: true });
  });
  after(async () => {
    await emu?.close();
    await redis?.stop();
  });

  test('a request with 33 prefixes to look up sends one MGET, not a GET per prefix; a model with one endpoint none', async () => {
    const gw = await startTestGateway({ yaml: yaml(emu), redis: { url: redis.url } });
    const conn = new RedisConnection({ url: redis.url });
    await conn.connect();
    try {
      const ask = async (model: string): Promise<void> => {
        const res = await postJson(
          `${gw.baseUrl}/chat/completions`,
          { model, messages: conversation(41) },
          { authorization: `Bearer ${gw.key}` },
        );
        assert.equal(res.status, 200, res.text);
      };
      await ask('acme/two'); // warm: scripts loaded, snapshot read
      await conn.send(['CONFIG', 'RESETSTAT']);
      await ask('acme/two');
      const two = await commandCalls(conn);
      assert.equal(two.get('mget'), 1, 'one MGET for the whole lookup');
      // GETs left are the rate limiter's, inside its script: one per rule, never one per prefix.
      assert.ok((two.get('get') ?? 0) <= 3, `GET calls: ${two.get('get')}`);

      await conn.send(['CONFIG', 'RESETSTAT']);
      await ask('acme/one');
      assert.equal((await commandCalls(conn)).get('mget'), undefined, 'no lookup without a choice of endpoint');
    } finally {
      await conn.close();
      await gw.close();
    }
  });

  test('a request whose preferences leave one endpoint, or fix the order, is not looked up, and is still remembered', async () => {
    const prefix = `remember-${process.pid}`;
    const gw = await startTestGateway({ yaml: yaml(emu), redis: { url: redis.url, prefix } });
    const conn = new RedisConnection({ url: redis.url });
    await conn.connect();
    try {
      let remembered = 0;
      for (const provider of [{ only: ['east'] }, { order: ['west', 'east'] }]) {
        await conn.send(['CONFIG', 'RESETSTAT']);
        const body = {
          model: 'acme/two',
          provider,
          prompt_cache_key: `conversation-${JSON.stringify(provider)}`,
          messages: conversation(1),
        };
        const res = await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${gw.key}` });
        assert.equal(res.status, 200, res.text);
        assert.equal((await commandCalls(conn)).get('mget'), undefined, `no lookup with ${JSON.stringify(provider)}`);
        // Remembered (it asked for caching): wait for the write, which the answer does not wait for.
        remembered += 1;
        while ((await conn.send<string[]>(['KEYS', `${prefix}:st:*`])).length < remembered);
      }
    } finally {
      await conn.close();
      await gw.close();
    }
  });
});

/** Reads Redis processed (one per batch of commands a client sent at once) since RESETSTAT, and the calls per command. */
async function stats(conn: RedisConnection): Promise<{ reads: number; calls: Map<string, number> }> {
  const text = await conn.send<string>(['INFO', 'all']);
  const reads = Number(/^total_reads_processed:(\d+)/m.exec(text)![1]);
  return { reads, calls: new Map([...text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])])) };
}

describe("a request's Redis commands", { skip: redisUnavailable() ?? false }, () => {
  let redis: RedisServer;
  let emu: OpenAIChatEmulator;
  before(async () => {
    redis = await startRedis();
    emu = await startOpenAIChatEmulator();
  });
  after(async () => {
    await emu?.close();
    await redis?.stop();
  });

  test('four: sticky lookup with rate limits, index with reserve, finish, and the settlement reported after its commit', async () => {
    const prefix = `calls-${process.pid}`;
    const gw = await startTestGateway({ yaml: yaml(emu), redis: { url: redis.url, prefix } });
    const conn = new RedisConnection({ url: redis.url });
    await conn.connect();
    let mine = 0;
    const info = async () => {
      mine += 1;
      return stats(conn);
    };
    // The answer's last byte waits for the commit, and the commit is then reported to Redis
    // (its settling amount leaves the account's hash): wait for that report.
    const reported = async (): Promise<void> => {
      for (;;) {
        mine += 1;
        const settling = await conn.send<string | null>(['HGET', `${prefix}:ch:{${gw.accountId}}:account`, 'settling']);
        if (settling === null || settling === '0') return;
      }
    };
    try {
      const ask = async (): Promise<void> => {
        const res = await postJson(
          `${gw.baseUrl}/chat/completions`,
          { model: 'acme/two', messages: conversation(1) },
          { authorization: `Bearer ${gw.key}` },
        );
        assert.equal(res.status, 200, res.text);
      };
      await ask(); // warm: scripts loaded, snapshot read
      await reported();
      await conn.send(['CONFIG', 'RESETSTAT']);
      mine = 0;
      await ask();
      await reported();
      const s = await info();
      assert.equal(s.calls.get('mget'), 1, 'the sticky lookup');
      assert.equal(s.calls.get('evalsha'), 4, 'rate limits, reserve, finish, the commit reported');
      assert.equal(s.reads - mine, 4, `reads: ${s.reads}, of which ${mine} this test's own; calls ${JSON.stringify([...s.calls])}`);
    } finally {
      await conn.close();
      await gw.close();
    }
  });

  test('a request through a gateway on Redis makes no AbortSignal.timeout (each would fire later, an Event and a DOMException, reply or not)', async () => {
    const gw = await startTestGateway({ yaml: yaml(emu), redis: { url: redis.url } });
    const original = AbortSignal.timeout;
    let armed = 0;
    AbortSignal.timeout = (ms: number) => {
      armed += 1;
      return original.call(AbortSignal, ms);
    };
    try {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/two', messages: conversation(1) },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 200, res.text);
      await gw.flush();
      assert.equal(armed, 0);
    } finally {
      AbortSignal.timeout = original;
      await gw.close();
    }
  });
});
