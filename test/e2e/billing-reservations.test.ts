import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { nanosToNumber } from '../../src/money/money.ts';
import { generationRecord } from '../support/public-api.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// acme/mock-1: prompt $0.000001, completion $0.000002 per token (emulatorConfig).
const PROMPT_NANOS = 1000n;
const COMPLETION_NANOS = 2000n;

describe('credit reservations', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator();
  });
  after(() => emu.close());
  beforeEach(() => emu.reset());

  test('an unaffordable request gets 402 before any upstream call, saying how many output tokens it could afford', async () => {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '0.001' });
    try {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/mock-1',
          max_tokens: 100_000,
          messages: [{ role: 'user', content: 'hi' }],
        },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 402);
      assert.equal(res.json.error.type, 'insufficient_quota_error');
      const affordable = res.json.error.metadata.affordable_output_tokens;
      assert.ok(affordable > 0 && affordable < 500, `affordable ${affordable}`);
      assert.match(res.json.error.message, new RegExp(`can only afford ${affordable}`));
      assert.equal(emu.requests.length, 0, 'no upstream call');
      assert.ok(res.headers.get('x-ratelimit-limit'), 'the refusal still carries the rate-limit state');
      await gw.flush();
      // Counted, not recorded (store/sqlite/refusal-counts.ts).
      const counted = await gw.services.stores.refusals.list({ keyHash: gw.keyHash }, null, 10);
      assert.deepEqual(
        counted.map((c) => [c.reason, c.count]),
        [['insufficient_quota', 1]],
      );

      // Asking for what it can afford goes through.
      emu.enqueue({ text: 'ok', usage: { prompt_tokens: 5, completion_tokens: 2 } });
      const ok = await postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'acme/mock-1',
          max_tokens: affordable,
          messages: [{ role: 'user', content: 'hi' }],
        },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await gw.close();
    }
  });

  test('the hold is released at settlement: only the actual cost leaves the balance', async () => {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '1' });
    try {
      emu.enqueue({ text: 'ok', usage: { prompt_tokens: 7, completion_tokens: 3 } });
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', max_tokens: 1000, messages: [{ role: 'user', content: 'x' }] },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 200);
      const account = (await gw.services.stores.accounts.getAccount(gw.accountId))!;
      assert.equal(gw.services.reservations.heldFor(gw.accountId), 0n, 'nothing held any more');
      assert.equal(account.balanceNanos, 1_000_000_000n - (7n * PROMPT_NANOS + 3n * COMPLETION_NANOS));
      await gw.flush();
      assert.equal(countHolds(gw), 0, 'no hold row left behind');
    } finally {
      await gw.close();
    }
  });

  test('many parallel requests against a balance that affords 4: exactly 4 succeed, the rest get 402, never below zero', async () => {
    // Each answer really costs its worst case: 10 prompt tokens and all 1000 output tokens.
    const perRequest = 10n * PROMPT_NANOS + 1000n * COMPLETION_NANOS; // $0.00201
    // $0.01 holds four worst cases ($0.002 of output each, plus the prompt), not five.
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '0.01' });
    try {
      const N = 24;
      // Every answer waits until each request is either refused or upstream, so all 24
      // compete for the balance at once, whatever the machine's speed.
      const upstream = gate();
      for (let i = 0; i < N; i++) {
        emu.enqueue({ fault: 'held', until: upstream.until, then: { text: 'x', usage: { prompt_tokens: 10, completion_tokens: 1000 } } });
      }
      let refusedSoFar = 0;
      const pending = Array.from({ length: N }, () =>
        postJson(
          `${gw.baseUrl}/chat/completions`,
          {
            model: 'acme/mock-1',
            max_tokens: 1000,
            messages: [{ role: 'user', content: 'go' }],
          },
          { authorization: `Bearer ${gw.key}` },
        ).then((r) => {
          if (r.status === 402) refusedSoFar++;
          return r;
        }),
      );
      while (refusedSoFar + emu.requests.length < N) await new Promise((r) => setTimeout(r, 5));
      assert.equal(emu.requests.length, 4, 'four requests were admitted and sent upstream');
      upstream.open();
      const results = await Promise.all(pending);
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 402);
      assert.equal(ok.length, 4, `statuses: ${results.map((r) => r.status).join(',')}`);
      assert.equal(refused.length, N - 4);
      for (const r of refused) assert.equal(r.json.error.type, 'insufficient_quota_error');
      const account = (await gw.services.stores.accounts.getAccount(gw.accountId))!;
      assert.equal(account.balanceNanos, 10_000_000n - 4n * perRequest, 'the ledger is exact, and above zero');
      assert.equal(gw.services.reservations.heldFor(gw.accountId), 0n);
      await gw.flush();
      assert.equal(countHolds(gw), 0);
      for (const r of ok)
        assert.equal(
          (await generationRecord(gw.origin, gw.key, r.json.id)).total_cost,
          nanosToNumber(perRequest),
          'each success charged once',
        );
      const credits = (await (await fetch(`${gw.baseUrl}/credits`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as {
        data: { total_usage: number };
      };
      assert.equal(credits.data.total_usage, nanosToNumber(4n * perRequest), 'and nothing else charged');
    } finally {
      await gw.close();
    }
  });

  test("a key's own credit limit is held against too", async () => {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '100' });
    try {
      const { key } = await gw.services.accountService.createKey({ accountId: gw.accountId, limitUsd: '0.001' });
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', max_tokens: 1000, messages: [{ role: 'user', content: 'x' }] },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(res.status, 402);
      assert.equal(res.json.error.metadata.reason, 'key_limit');
      assert.match(res.json.error.message, /key's credit limit/);
    } finally {
      await gw.close();
    }
  });

  test('a failed upstream call is not charged and its hold is released', async () => {
    const gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), credits: '1' });
    try {
      // Every attempt fails, retries included.
      for (let i = 0; i < 10; i++) emu.enqueue({ fault: 'status', status: 500 });
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', messages: [{ role: 'user', content: 'x' }] },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 502);
      const account = (await gw.services.stores.accounts.getAccount(gw.accountId))!;
      assert.equal(account.balanceNanos, 1_000_000_000n);
      assert.equal(gw.services.reservations.heldFor(gw.accountId), 0n);
      await gw.flush();
      assert.equal(countHolds(gw), 0);
      const gen = await generationRecord(gw.origin, gw.key, res.headers.get('x-generation-id')!);
      assert.equal(gen.status, 'error');
      assert.equal(gen.error_code, 'provider_error');
      assert.equal(gen.total_cost, 0);
    } finally {
      await gw.close();
    }
  });
});

/** Holds left in the database: no public API shows them. */
function countHolds(gw: TestGateway): number {
  return Number((gw.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n);
}
