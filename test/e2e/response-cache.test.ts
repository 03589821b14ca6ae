import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';

// Opt-in response caching (docs/configuration.md#response-cache) through real HTTP: an
// OpenAI-format emulator upstream counts the calls that reach it.

const CACHE = `cache:
  enabled: true
  ttl_seconds: 600
  hit_price: 0.25
`;

interface Rig {
  gw: TestGateway;
  emu: OpenAIChatEmulator;
  chat(body: Record<string, unknown>, headers?: Record<string, string>, key?: string): ReturnType<typeof postJson>;
  close(): Promise<void>;
}

async function startRig(cache = CACHE, extra: Partial<TestGatewayOptions> = {}): Promise<Rig> {
  const emu = await startOpenAIChatEmulator();
  const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl, cache), env: { LOCAL_KEY: 'sk-local' }, ...extra });
  return {
    gw,
    emu,
    chat: (body, headers = {}, key = gw.key) =>
      postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${key}`, ...headers }),
    async close() {
      await gw.close();
      await emu.close();
    },
  };
}

const ASK = { model: 'acme/mock-1', messages: [{ role: 'user', content: 'What is 2 + 2?' }], temperature: 0 };

async function hitThenMiss(rig: Rig): Promise<void> {
  const first = await rig.chat(ASK);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('x-switchyard-cache'), 'MISS');
  const second = await rig.chat(ASK);
  assert.equal(second.status, 200, second.text);
  assert.equal(second.headers.get('x-switchyard-cache'), 'HIT');
  assert.equal(rig.emu.requests.length, 1, 'the hit did not call the upstream');
  assert.equal(second.json.choices[0].message.content, first.json.choices[0].message.content);
  assert.deepEqual(second.json.usage.prompt_tokens, first.json.usage.prompt_tokens);

  await rig.gw.flush();
  const missRecord = (await rig.gw.services.stores.generations.getRecord(first.headers.get('x-generation-id')!))!;
  const hitRecord = (await rig.gw.services.stores.generations.getRecord(second.headers.get('x-generation-id')!))!;
  assert.equal(missRecord.cacheHit, false);
  assert.equal(hitRecord.cacheHit, true);
  assert.equal(hitRecord.provider, 'local');
  assert.deepEqual(hitRecord.attempts, [], 'no upstream attempt');
  // hit_price 0.25: a quarter of the answer's price, rounded half up to the nano-dollar.
  assert.ok(missRecord.costNanos > 0n);
  assert.equal(hitRecord.costNanos, (missRecord.costNanos * 25n * 2n + 100n) / 200n);
  assert.equal(hitRecord.costBreakdown?.cache_hit_discount !== undefined, true);
  const lookup = await fetch(`${rig.gw.baseUrl}/generation?id=${second.headers.get('x-generation-id')}`, {
    headers: { authorization: `Bearer ${rig.gw.key}` },
  });
  assert.equal(((await lookup.json()) as any).data.cache_hit, true);
}

// A small cache: 16 KiB in all, a quarter of it per account.
const SMALL_CACHE = `cache:
  enabled: true
  max_total_bytes: 16384
  account_share: 0.25
tiers:
  enterprise:
    requests_per_minute: 100000
`;

/**
 * Account A caches an answer; account B then sends many distinct cacheable requests, more
 * bytes in all than the whole cache holds; A's answer is still a hit, and B's own first
 * answers were the ones to go.
 */
async function floodKeepsOthers(rig: Rig): Promise<void> {
  assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'MISS');
  const b = await rig.gw.services.accountService.createAccount({ name: 'flooder', type: 'user', tier: 'enterprise', creditsUsd: '100' });
  const { key } = await rig.gw.services.accountService.createKey({ accountId: b.id, name: 'k' });
  const flood = (i: number) => ({ ...ASK, messages: [{ role: 'user', content: `flood ${i}: ${'pad '.repeat(40)}` }] });
  const FLOOD = 80;
  for (let start = 0; start < FLOOD; start += 8) {
    const batch = await Promise.all(Array.from({ length: 8 }, (_, j) => rig.chat(flood(start + j), {}, key)));
    for (const r of batch) assert.equal(r.status, 200, r.text);
  }
  // The flood was larger than the whole cache: without a share per account it would have evicted A's answer.
  const entryBytes = JSON.stringify((await rig.chat(flood(FLOOD), {}, key)).json).length;
  assert.ok(entryBytes * FLOOD > 16384, `${entryBytes} bytes x ${FLOOD}`);
  const upstreamBefore = rig.emu.requests.length;
  const again = await rig.chat(ASK);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.headers.get('x-switchyard-cache'), 'HIT', "account A's answer survived B's flood");
  assert.equal(rig.emu.requests.length, upstreamBefore);
  // B's latest answer is kept, its first went to make room.
  assert.equal((await rig.chat(flood(FLOOD), {}, key)).headers.get('x-switchyard-cache'), 'HIT');
  assert.equal((await rig.chat(flood(0), {}, key)).headers.get('x-switchyard-cache'), 'MISS');
}

/** An account's share of 100 bytes (400 × 0.25) holds no answer: each is asked upstream, never kept (in Redis it was kept, evicting the rest). */
const TINY_SHARE = 'cache: { enabled: true, max_total_bytes: 400, account_share: 0.25 }\n';

async function overShareNotKept(rig: Rig): Promise<void> {
  const first = await rig.chat(ASK);
  assert.equal(first.headers.get('x-switchyard-cache'), 'MISS');
  assert.ok(first.text.length > 100, `an answer of ${first.text.length} bytes is over the share`);
  assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'MISS');
  assert.equal(rig.emu.requests.length, 2);
}

describe('response cache, in process', () => {
  test("one account's flood of cacheable requests evicts only its own answers (cache.account_share)", async () => {
    const rig = await startRig(SMALL_CACHE);
    try {
      await floodKeepsOthers(rig);
    } finally {
      await rig.close();
    }
  });

  test('a second identical temperature-0 request is a hit: upstream called once, marked, charged a quarter', async () => {
    const rig = await startRig();
    try {
      await hitThenMiss(rig);
    } finally {
      await rig.close();
    }
  });

  test('another account asking the same is a miss: answers are never shared across accounts', async () => {
    const rig = await startRig();
    try {
      assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'MISS');
      const acct = await rig.gw.services.accountService.createAccount({ name: 'other', type: 'user', tier: 'tier2', creditsUsd: '10' });
      const { key } = await rig.gw.services.accountService.createKey({ accountId: acct.id, name: 'k' });
      const res = await rig.chat(ASK, {}, key);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('x-switchyard-cache'), 'MISS');
      assert.equal(rig.emu.requests.length, 2);
    } finally {
      await rig.close();
    }
  });

  test('temperature 0.7 without opt-in is never cached; X-Switchyard-Cache: on opts in; off opts out', async () => {
    const rig = await startRig();
    try {
      const warm = { ...ASK, temperature: 0.7 };
      for (let i = 0; i < 2; i++) {
        const res = await rig.chat(warm);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('x-switchyard-cache'), null);
      }
      assert.equal(rig.emu.requests.length, 2);
      assert.equal((await rig.chat(warm, { 'x-switchyard-cache': 'on' })).headers.get('x-switchyard-cache'), 'MISS');
      assert.equal((await rig.chat(warm, { 'x-switchyard-cache': 'on' })).headers.get('x-switchyard-cache'), 'HIT');
      assert.equal(rig.emu.requests.length, 3);
      const off = await rig.chat(ASK, { 'x-switchyard-cache': 'off' });
      assert.equal(off.headers.get('x-switchyard-cache'), null);
      assert.equal(rig.emu.requests.length, 4);
    } finally {
      await rig.close();
    }
  });

  test('off unless the operator enables it: temperature 0 twice calls the upstream twice', async () => {
    const rig = await startRig('');
    try {
      for (let i = 0; i < 2; i++) assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), null);
      assert.equal(rig.emu.requests.length, 2);
    } finally {
      await rig.close();
    }
  });

  test('hit_price free: a hit costs nothing', async () => {
    const rig = await startRig('cache: { enabled: true, hit_price: free }\n');
    try {
      await rig.chat(ASK);
      const hit = await rig.chat(ASK);
      assert.equal(hit.headers.get('x-switchyard-cache'), 'HIT');
      await rig.gw.flush();
      assert.equal((await rig.gw.services.stores.generations.getRecord(hit.headers.get('x-generation-id')!))!.costNanos, 0n);
    } finally {
      await rig.close();
    }
  });

  test('a streamed hit replays the answer as a stream the official openai client reads', async () => {
    const rig = await startRig();
    try {
      const client = new OpenAI({ baseURL: rig.gw.baseUrl, apiKey: rig.gw.key, maxRetries: 0 });
      const plain = await client.chat.completions.create({
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Count to three.' }],
        temperature: 0,
      });
      const { data: stream, response } = await client.chat.completions
        .create({
          model: 'acme/mock-1',
          messages: [{ role: 'user', content: 'Count to three.' }],
          temperature: 0,
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      assert.equal(response.headers.get('x-switchyard-cache'), 'HIT');
      let text = '';
      let usage: OpenAI.CompletionUsage | null | undefined = null;
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, plain.choices[0]!.message.content);
      assert.equal(finish, 'stop');
      assert.equal(usage?.completion_tokens, plain.usage?.completion_tokens);
      assert.equal(rig.emu.requests.length, 1);
    } finally {
      await rig.close();
    }
  });

  test("a streamed hit on the messages endpoint replays Anthropic's events, from an answer first given to the chat endpoint", async () => {
    const rig = await startRig();
    try {
      const chat = await rig.chat({
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'Name a colour.' }],
        temperature: 0,
        max_tokens: 50,
      });
      assert.equal(chat.headers.get('x-switchyard-cache'), 'MISS');
      const res = await postJson(
        `${rig.gw.baseUrl}/messages`,
        {
          model: 'acme/mock-1',
          max_tokens: 50,
          temperature: 0,
          stream: true,
          messages: [{ role: 'user', content: 'Name a colour.' }],
        },
        { 'x-api-key': rig.gw.key, 'anthropic-version': '2023-06-01' },
      );
      assert.equal(res.status, 200, res.text);
      // Both decode to the same canonical request (the key is the request's meaning, not its dialect).
      const events = sseData(res.text) as Array<{ type: string; delta?: { text?: string } }>;
      assert.equal(events[0]!.type, 'message_start');
      assert.equal(events.at(-1)!.type, 'message_stop');
      const text = events
        .filter((e) => e.type === 'content_block_delta')
        .map((e) => e.delta?.text ?? '')
        .join('');
      assert.equal(text, chat.json.choices[0].message.content);
      assert.equal(res.headers.get('x-switchyard-cache'), 'HIT');
      assert.equal(rig.emu.requests.length, 1);
    } finally {
      await rig.close();
    }
  });

  test('an answer over cache.max_entry_bytes is not kept', async () => {
    const rig = await startRig('cache: { enabled: true, max_entry_bytes: 50 }\n');
    try {
      assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'MISS');
      assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'MISS');
      assert.equal(rig.emu.requests.length, 2);
    } finally {
      await rig.close();
    }
  });

  test("an answer larger than the account's share of the cache is not kept", async () => {
    const rig = await startRig(TINY_SHARE);
    try {
      await overShareNotKept(rig);
    } finally {
      await rig.close();
    }
  });

  test('a hit still counts against the rate limits', async () => {
    const rig = await startRig(`${CACHE}tiers:\n  tier2:\n    requests_per_minute: 2\n`);
    try {
      assert.equal((await rig.chat(ASK)).status, 200);
      assert.equal((await rig.chat(ASK)).headers.get('x-switchyard-cache'), 'HIT');
      const third = await rig.chat(ASK);
      assert.equal(third.status, 429, third.text);
      assert.equal(rig.emu.requests.length, 1);
    } finally {
      await rig.close();
    }
  });
});

const skip = redisUnavailable() ?? false;

describe('response cache, in Redis', { skip }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  test("one account's flood of cacheable requests evicts only its own answers in Redis too (cache.account_share)", async () => {
    const rig = await startRig(SMALL_CACHE, { redis: { url: redis.url, prefix: `rcf-${process.pid}` } });
    try {
      await floodKeepsOthers(rig);
    } finally {
      await rig.close();
    }
  });

  test("an answer larger than the account's share of the cache is not kept in Redis either", async () => {
    const rig = await startRig(TINY_SHARE, { redis: { url: redis.url, prefix: `rcs-${process.pid}` } });
    try {
      await overShareNotKept(rig);
    } finally {
      await rig.close();
    }
  });

  test('a second identical temperature-0 request is a hit from Redis: upstream called once, marked, charged a quarter', async () => {
    const prefix = `rc-${process.pid}`;
    const rig = await startRig(CACHE, { redis: { url: redis.url, prefix } });
    try {
      await hitThenMiss(rig);
      const short = await rig.chat({ ...ASK, messages: [{ role: 'user', content: 'Briefly?' }] }, { 'x-switchyard-cache-ttl': '30' });
      assert.equal(short.headers.get('x-switchyard-cache'), 'MISS');
      const conn = new RedisConnection({ url: redis.url });
      await conn.connect();
      try {
        const keys = (await conn.send<string[]>(['KEYS', `${prefix}:rc:*`])).filter((k) => !k.includes(':#'));
        assert.equal(keys.length, 2);
        const ttls = (await Promise.all(keys.map((k) => conn.send<number>(['PTTL', k])))).sort((a, b) => a - b);
        assert.ok(ttls[0]! > 0 && ttls[0]! <= 30_000, `X-Switchyard-Cache-TTL: 30 gives at most 30 s: ${ttls[0]}`);
        assert.ok(ttls[1]! > 30_000 && ttls[1]! <= 600_000, `cache.ttl_seconds: ${ttls[1]}`);
      } finally {
        await conn.close();
      }
    } finally {
      await rig.close();
    }
  });
});

const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;

describe('response cache, on a fleet instance (Postgres and Redis)', { skip: fleetSkip }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
    await stopPostgres();
  });

  test('a second identical temperature-0 request is a hit: upstream called once, marked, charged a quarter, recorded in Postgres', async () => {
    const rig = await startRig(CACHE, { env: { DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url } });
    try {
      assert.equal(rig.gw.services.stores.engine, 'postgres');
      await hitThenMiss(rig);
    } finally {
      await rig.close();
    }
  });
});
