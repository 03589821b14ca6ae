import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { usdToNanos } from '../../src/money/money.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway } from '../support/test-gateway.ts';

// Holds are upper bounds of what the upstream will charge, whatever the script of the prompt.

describe('holds are upper bounds', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator({ countWith: 'o200k_base' });
  });
  after(() => emu.close());

  test('concurrent Hangul-jamo prompts counted with o200k cannot push a key past its limit or a balance below zero', async () => {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '0.05' });
    try {
      emu.reset();
      const { key } = await gw.services.accountService.createKey({ accountId: gw.accountId, limitUsd: '0.04' });
      const N = 6;
      // 12,000 jamo are 36,000 o200k tokens ($0.036 here); today's estimate held $0.0075 each.
      for (let i = 0; i < N; i++) emu.enqueue({ fault: 'slow-first-byte', delayMs: 100, then: { text: 'ok' } });
      const prompt = 'ᄀ'.repeat(12_000);
      const results = await Promise.all(
        Array.from({ length: N }, () =>
          postJson(
            `${gw.baseUrl}/chat/completions`,
            {
              model: 'acme/mock-1',
              max_tokens: 1,
              messages: [{ role: 'user', content: prompt }],
            },
            { authorization: `Bearer ${key}` },
          ),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
      assert.equal(ok[0]!.json.usage.prompt_tokens, 36_007, 'the upstream counted with o200k');
      assert.ok(results.every((r) => r.status === 200 || r.status === 402));
      await gw.flush();
      const keyRow = gw.db.prepare('SELECT usage_nanos AS u, limit_nanos AS l FROM api_keys WHERE limit_nanos IS NOT NULL').get() as {
        u: bigint | number;
        l: bigint | number;
      };
      assert.ok(BigInt(keyRow.u) <= BigInt(keyRow.l), `key usage ${keyRow.u} over its limit ${keyRow.l}`);
      const account = (await gw.services.stores.accounts.getAccount(gw.accountId))!;
      assert.ok(account.balanceNanos >= 0n, `balance ${account.balanceNanos}`);
      assert.equal(account.balanceNanos, 50_000_000n - (36_007n * 1000n + 1n * 2000n));
    } finally {
      await gw.close();
    }
  });
});

describe('an answer that costs more than its hold (the overshoot rule)', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator();
  });
  after(() => emu.close());

  // Each upstream bills 20,000 prompt tokens ($0.02) for a two-letter prompt held at well under a cent.
  const OVER = { text: 'ok', usage: { prompt_tokens: 20_000, completion_tokens: 1 } };
  const COST = 20_000n * 1000n + 2000n;

  async function overshoot(
    credits: string,
    limitUsd: string | null,
  ): Promise<{ gw: Awaited<ReturnType<typeof startTestGateway>>; statuses: number[]; records: any[] }> {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits });
    emu.reset();
    const key = limitUsd === null ? gw.key : (await gw.services.accountService.createKey({ accountId: gw.accountId, limitUsd })).key;
    const N = 5;
    // No answer until all five are in flight (admitted on their holds).
    for (let i = 0; i < N; i++) emu.enqueue({ ...OVER, holdUntilRequests: N });
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        postJson(
          `${gw.baseUrl}/chat/completions`,
          {
            model: 'acme/mock-1',
            max_tokens: 1,
            messages: [{ role: 'user', content: 'hi' }],
          },
          { authorization: `Bearer ${key}` },
        ),
      ),
    );
    await gw.flush();
    const records = await Promise.all(
      results.map(async (r) => (await gw.services.stores.generations.getRecord(r.headers.get('x-generation-id')!))!),
    );
    return { gw, statuses: results.map((r) => r.status), records };
  }

  test('concurrent overshoots never take the balance below zero: what does not fit is written off on the record', async () => {
    const { gw, statuses, records } = await overshoot('0.05', null);
    try {
      assert.deepEqual(statuses, [200, 200, 200, 200, 200], 'all were admitted on their (small) holds');
      const account = (await gw.services.stores.accounts.getAccount(gw.accountId))!;
      assert.ok(account.balanceNanos >= 0n, `balance ${account.balanceNanos}`);
      const charged = records.reduce((n, r) => n + r.costNanos, 0n);
      assert.equal(account.balanceNanos, 50_000_000n - charged);
      assert.equal(records.filter((r) => r.costNanos === COST).length, 2, 'two fit in full');
      const cut = records.filter((r) => r.costNanos < COST);
      assert.equal(cut.length, 3);
      for (const r of cut) {
        const writtenOff = usdToNanos(r.costBreakdown.written_off);
        assert.equal(r.costNanos + writtenOff, COST, 'charged + written off = the full cost');
      }
    } finally {
      await gw.close();
    }
  });

  test('concurrent overshoots never take a key past its own limit', async () => {
    const { gw, statuses, records } = await overshoot('100', '0.03');
    try {
      assert.ok(
        statuses.every((s) => s === 200),
        statuses.join(','),
      );
      const charged = records.reduce((n, r) => n + r.costNanos, 0n);
      assert.ok(charged <= 30_000_000n, `charged ${charged}`);
      const keyRow = gw.db.prepare('SELECT usage_nanos AS u FROM api_keys WHERE limit_nanos IS NOT NULL').get() as { u: bigint | number };
      assert.equal(BigInt(keyRow.u), charged);
      assert.equal(charged, 30_000_000n, 'the key is charged up to its limit, not beyond');
    } finally {
      await gw.close();
    }
  });
});

describe('a 402 is priced on the endpoint the hold was priced on', () => {
  let cheap: OpenAIChatEmulator;
  let dear: OpenAIChatEmulator;
  before(async () => {
    [cheap, dear] = await Promise.all([startOpenAIChatEmulator(), startOpenAIChatEmulator()]);
  });
  after(async () => {
    await Promise.all([cheap.close(), dear.close()]);
  });

  test('with a cheap and a dear endpoint, the affordable output count is what the dear one affords, and it goes through', async () => {
    const yaml = `sim: false
providers:
  - { id: cheap, kind: openai, base_url: "${cheap.baseUrl}" }
  - { id: dear, kind: openai, base_url: "${dear.baseUrl}" }
models:
  - id: acme/two
    name: Two
    context_length: 32000
    endpoints:
      - { provider: cheap, model: two-cheap, pricing: { prompt: "0.000001", completion: "0.000001" } }
      - { provider: dear, model: two-dear, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;
    const gw = await startTestGateway({ yaml, credits: '0.015' });
    try {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/two',
          provider: { order: ['cheap', 'dear'] },
          max_tokens: 10_000,
          messages: [{ role: 'user', content: 'hi' }],
        },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 402, res.text);
      const meta = res.json.error.metadata;
      assert.equal(meta.requested_output_tokens, 10_000);
      // $0.015 minus the prompt's bound, at $0.000002 a token: under 7,500.
      assert.ok(
        meta.affordable_output_tokens < 7_500 && meta.affordable_output_tokens > 7_000,
        `affordable ${meta.affordable_output_tokens}`,
      );
      assert.match(res.json.error.message, new RegExp(`can only afford ${meta.affordable_output_tokens};`));
      cheap.enqueue({ text: 'ok', usage: { prompt_tokens: 8, completion_tokens: 1 } });
      const ok = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/two',
          provider: { order: ['cheap', 'dear'] },
          max_tokens: meta.affordable_output_tokens,
          messages: [{ role: 'user', content: 'hi' }],
        },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await gw.close();
    }
  });
});
