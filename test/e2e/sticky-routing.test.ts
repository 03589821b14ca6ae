import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { computeCost } from '../../src/billing/compute-cost.ts';
import { seededRandom } from '../../src/canonical/seeded-random.test-util.ts';
import { RedisConnection } from '../../src/shared/redis/redis-connection.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { postJson, startTestGateway, type TestGateway, type TestGatewayOptions } from '../support/test-gateway.ts';

// Sticky routing for prompt caches (docs/routing.md, "Sticky routing"), measured: three
// upstreams serve one model at the same price, each with its own prompt cache (an upstream
// reports cached tokens only for a prefix it has seen itself). Without stickiness the
// weighted draw spreads the turns of a conversation over the three and loses cache reads.

const ENDPOINTS = ['east', 'west', 'north'] as const;
const TURNS = 10;

function yaml(emus: readonly OpenAIChatEmulator[]): string {
  return `sim: false
providers:
${ENDPOINTS.map(
  (p, i) => `  - id: ${p}
    kind: openai
    base_url: ${emus[i]!.baseUrl}`,
).join('\n')}
models:
  - id: acme/convo
    name: Convo
    context_length: 64000
    endpoints:
${ENDPOINTS.map(
  (p) => `      - provider: ${p}
        model: convo-${p}
        pricing: { prompt: "0.000002", completion: "0.000008", cache_read: "0.0000005" }`,
).join('\n')}
`;
}

interface Rig {
  gw: TestGateway;
  emus: OpenAIChatEmulator[];
  close(): Promise<void>;
}

async function startRig(extra: Partial<TestGatewayOptions> = {}, seed = 7, more = ''): Promise<Rig> {
  const emus = await Promise.all(ENDPOINTS.map(() => startOpenAIChatEmulator({ promptCache: true })));
  const { yaml: _yaml, ...rest } = extra;
  const gw = await startTestGateway({ yaml: yaml(emus) + more, random: seededRandom(seed), ...rest });
  return {
    gw,
    emus,
    async close() {
      await gw.close();
      await Promise.all(emus.map((e) => e.close()));
    },
  };
}

const SYSTEM = `You are a patient tutor. ${'Explain each step of the reasoning with care and examples. '.repeat(20)}`;

/** A conversation of TURNS turns; returns each turn's generation id and the provider that served it. */
async function converse(
  rig: Rig,
  topic: string,
  extraBody: Record<string, unknown> = {},
): Promise<Array<{ id: string; provider: string }>> {
  const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: SYSTEM }];
  const turns: Array<{ id: string; provider: string }> = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    messages.push({ role: 'user', content: `${topic}: question ${turn}` });
    const res = await postJson(
      `${rig.gw.baseUrl}/chat/completions`,
      { model: 'acme/convo', messages, ...extraBody },
      { authorization: `Bearer ${rig.gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    messages.push({ role: 'assistant', content: res.json.choices[0].message.content });
    turns.push({ id: res.headers.get('x-generation-id')!, provider: res.json.provider });
  }
  return turns;
}

async function measure(rig: Rig): Promise<void> {
  const turns = await converse(rig, 'fractions');
  const first = turns[0]!.provider;
  assert.deepEqual(
    turns.map((t) => t.provider),
    Array(TURNS).fill(first),
    'every turn after the first goes where the first went',
  );

  await rig.gw.flush();
  const pricing = rig.gw.services.inForce.catalog
    .resolve('acme/convo')!
    .model.endpoints.find((e) => e.provider.id === first)!.compiledPricing;
  const served = rig.emus[ENDPOINTS.indexOf(first as (typeof ENDPOINTS)[number])]!;
  const upstreamAnswers = served.requests.length;
  assert.equal(upstreamAnswers, TURNS);
  let billedCacheRead = 0;
  for (const [i, t] of turns.entries()) {
    const record = (await rig.gw.services.stores.generations.getRecord(t.id))!;
    assert.equal(record.provider, first);
    if (i > 0) assert.ok(record.tokensCacheRead > 0, `turn ${i + 1} read the cache`);
    billedCacheRead += record.tokensCacheRead;
    const expected = computeCost(
      { input: record.tokensPrompt, cacheRead: record.tokensCacheRead, cacheWrite: 0, output: record.tokensCompletion, reasoning: 0 },
      pricing,
    );
    assert.equal(record.costNanos, expected.totalNanos);
    assert.equal(record.costBreakdown?.cache_read, expected.breakdown.cache_read);
  }
  assert.equal(billedCacheRead, served.promptCache!.totalCachedTokens, 'the billed cache reads are the ones the upstream reported');
}

/** A small memory: 40 conversations in all, a quarter of them per account. */
const SMALL_STICKY = 'sticky: { max_entries: 40, account_share: 0.25 }\n';

/**
 * Account A starts 5 conversations (each remembered on the endpoint that served it); account
 * B then starts 60 of its own, more than the whole memory holds; each of A's conversations
 * still continues on its endpoint.
 */
async function floodKeepsOthers(rig: Rig): Promise<string> {
  const ask = (key: string, conversation: string, turn: number) =>
    postJson(
      `${rig.gw.baseUrl}/chat/completions`,
      { model: 'acme/convo', prompt_cache_key: conversation, messages: [{ role: 'user', content: `${conversation}: turn ${turn}` }] },
      { authorization: `Bearer ${key}` },
    );
  const firstTurns = new Map<string, string>();
  for (let c = 0; c < 5; c++) {
    const res = await ask(rig.gw.key, `a-${c}`, 1);
    assert.equal(res.status, 200, res.text);
    firstTurns.set(`a-${c}`, res.json.provider);
  }
  assert.ok(new Set(firstTurns.values()).size > 1, 'the draw spread the first turns: sticking to each is not luck');
  const b = await rig.gw.services.accountService.createAccount({ name: 'flooder', type: 'user', tier: 'enterprise', creditsUsd: '100' });
  const { key } = await rig.gw.services.accountService.createKey({ accountId: b.id, name: 'k' });
  for (let start = 0; start < 60; start += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => ask(key, `b-${start + j}`, 1)));
    for (const r of batch) assert.equal(r.status, 200, r.text);
  }
  for (let turn = 2; turn <= 4; turn++) {
    for (const [conversation, provider] of firstTurns) {
      const res = await ask(rig.gw.key, conversation, turn);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.provider, provider, `${conversation} turn ${turn} stays where its cache is`);
    }
  }
  return b.id;
}

describe('sticky routing, in process', () => {
  test("one account's flood of conversations evicts only its own (sticky.account_share)", { timeout: 60_000 }, async () => {
    const rig = await startRig({ yaml: undefined }, 7, SMALL_STICKY);
    try {
      await floodKeepsOthers(rig);
    } finally {
      await rig.close();
    }
  });

  test(
    'a 10-turn conversation over 3 equal endpoints stays on the first one, and its cache reads are billed',
    { timeout: 60_000 },
    async () => {
      const rig = await startRig();
      try {
        await measure(rig);
      } finally {
        await rig.close();
      }
    },
  );

  test(
    'without a cache in play the draw still spreads requests: stickiness is per conversation, not per model',
    { timeout: 60_000 },
    async () => {
      const rig = await startRig();
      try {
        const providers = new Set<string>();
        for (let i = 0; i < 12; i++) {
          const res = await postJson(
            `${rig.gw.baseUrl}/chat/completions`,
            { model: 'acme/convo', messages: [{ role: 'user', content: `lone question ${i}` }] },
            { authorization: `Bearer ${rig.gw.key}` },
          );
          assert.equal(res.status, 200, res.text);
          providers.add(res.json.provider);
        }
        assert.ok(providers.size > 1, `12 unrelated one-turn requests drawn over 3 endpoints: ${[...providers].join(', ')}`);
      } finally {
        await rig.close();
      }
    },
  );

  test(
    'the sticky endpoint failing once: that turn fails over down the plan; the next goes back to the endpoint holding the cache',
    { timeout: 60_000 },
    async () => {
      const rig = await startRig();
      try {
        const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: SYSTEM }];
        const served: string[] = [];
        const turn = async (n: number): Promise<void> => {
          messages.push({ role: 'user', content: `failover: question ${n}` });
          const res = await postJson(
            `${rig.gw.baseUrl}/chat/completions`,
            { model: 'acme/convo', messages },
            { authorization: `Bearer ${rig.gw.key}` },
          );
          assert.equal(res.status, 200, res.text);
          messages.push({ role: 'assistant', content: res.json.choices[0].message.content });
          served.push(res.json.provider);
        };
        await turn(1);
        await turn(2);
        const first = served[0]!;
        rig.emus[ENDPOINTS.indexOf(first as (typeof ENDPOINTS)[number])]!.enqueue({ fault: 'status', status: 500 });
        await turn(3);
        const moved = served[2]!;
        assert.notEqual(moved, first, 'turn 3 failed over');
        await turn(4);
        await turn(5);
        // The endpoint that stood in read no cache (it had none), so nothing new was remembered.
        assert.deepEqual(served, [first, first, moved, first, first]);
      } finally {
        await rig.close();
      }
    },
  );

  test('an explicit provider.order wins over stickiness', { timeout: 60_000 }, async () => {
    const rig = await startRig();
    try {
      const turns = await converse(rig, 'decimals');
      const other = ENDPOINTS.find((p) => p !== turns[0]!.provider)!;
      const res = await postJson(
        `${rig.gw.baseUrl}/chat/completions`,
        {
          model: 'acme/convo',
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: 'decimals: question 1' },
            { role: 'assistant', content: 'Hello from x' },
            { role: 'user', content: 'again' },
          ],
          provider: { order: [other] },
        },
        { authorization: `Bearer ${rig.gw.key}` },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.provider, other);
    } finally {
      await rig.close();
    }
  });
});

const skip = redisUnavailable() ?? false;

describe('sticky routing, in Redis', { skip }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  test(
    'a 10-turn conversation over 3 equal endpoints stays on the first one, and its cache reads are billed',
    { timeout: 60_000 },
    async () => {
      const prefix = `sticky-${process.pid}`;
      const rig = await startRig({ redis: { url: redis.url, prefix } });
      try {
        await measure(rig);
        const conn = new RedisConnection({ url: redis.url });
        await conn.connect();
        try {
          const keys = (await conn.send<string[]>(['KEYS', `${prefix}:st:*`])).filter((k) => !k.endsWith(':#lru'));
          assert.ok(keys.length > 0, 'the sticky routes are in Redis');
          for (const k of keys)
            assert.match(
              k,
              /^sticky-\d+:st:\{acct_[A-Za-z0-9_-]+\}:[0-9a-f]{16}:[0-9a-f]{64}$/,
              'digests hash-tagged by their account, no prompt text',
            );
        } finally {
          await conn.close();
        }
      } finally {
        await rig.close();
      }
    },
  );
});

describe('sticky routing, in Redis, per account', { skip }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  test(
    "one account's flood of conversations evicts only its own (sticky.account_share), and holds at most its share",
    { timeout: 60_000 },
    async () => {
      const prefix = `stickyf-${process.pid}`;
      const rig = await startRig({ redis: { url: redis.url, prefix } }, 7, SMALL_STICKY);
      try {
        const flooder = await floodKeepsOthers(rig);
        const conn = new RedisConnection({ url: redis.url });
        await conn.connect();
        try {
          const mine = (await conn.send<string[]>(['KEYS', `${prefix}:st:{${flooder}}:*`])).filter((k) => !k.endsWith(':#lru'));
          assert.equal(mine.length, 10, "the flooder's entries: its share, 10 of 40");
        } finally {
          await conn.close();
        }
      } finally {
        await rig.close();
      }
    },
  );
});

const fleetSkip = redisUnavailable() ?? postgresUnavailable() ?? false;

describe('sticky routing, on a fleet instance (Postgres and Redis)', { skip: fleetSkip }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
    await stopPostgres();
  });

  test(
    'a 10-turn conversation over 3 equal endpoints stays on the first one, and its cache reads are billed, in Postgres',
    { timeout: 60_000 },
    async () => {
      const rig = await startRig({ env: { DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url } });
      try {
        assert.equal(rig.gw.services.stores.engine, 'postgres');
        await measure(rig);
      } finally {
        await rig.close();
      }
    },
  );
});
