import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { chat, CollectingSink, PipelineHarness, type HarnessOptions } from './pipeline-harness.test-util.ts';

// The pipeline's decisions, with its real collaborators in memory and no HTTP
// (pipeline-harness.test-util.ts): the order of admission, what each refusal charges and
// records (nothing: a count per reason), and the settlement and record of each outcome.

// 10 prompt tokens at $1/M and 5 completion tokens at $2/M: 10 × 1,000 + 5 × 2,000 nano-USD.
const USAGE = { input: 10, output: 5 };
const COST = 20_000n;
const ORDERED = { provider: { order: ['first', 'second'] } };

let h: PipelineHarness | null = null;
function harness(opts: HarnessOptions = {}): PipelineHarness {
  h = new PipelineHarness(opts);
  return h;
}
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('admission order', () => {
  it("a key's allowlist is decided before the credit hold: an unknown-to-it model is model_not_found even at a balance of 0", async () => {
    const p = harness({ balanceNanos: 0n, keyAllowlist: { models: ['acme/other'] } });
    const r = await p.call(chat('acme/chat', 'hello'));
    assert.equal(r.refused?.code, 'model_not_found');
    assert.equal(r.refused?.headers?.['x-generation-id'], r.id, 'the refusal names its generation');
    assert.deepEqual(await p.refusals(), { model_not_found: 1 });
    assert.deepEqual(p.upstream.calls, []);
  });

  it('the guardrails come before the plan (a redaction changes the prompt it is sized on): a blocked text outside the allowlist is 403', async () => {
    const p = harness({ keyAllowlist: { models: ['acme/other'] }, guardrails: [{ detector: 'payment_card', action: 'block' }] });
    const r = await p.call(chat('acme/chat', 'card 4111 1111 1111 1111'));
    assert.equal(r.refused?.code, 'content_filtered');
    assert.deepEqual(r.refused?.metadata?.reasons, ['payment_card']);
  });

  it('the credit hold comes before any upstream call: 402, nothing held, sent, charged or stored; counted', async () => {
    const p = harness({ balanceNanos: 0n });
    const r = await p.call(chat('acme/chat', 'hello'));
    assert.equal(r.refused?.code, 'insufficient_quota');
    assert.deepEqual(p.upstream.calls, []);
    assert.equal(p.holds(), 0);
    assert.equal(p.recordCount(), 0, 'a refusal leaves no generation record');
    assert.deepEqual(await p.refusals(), { insufficient_quota: 1 });
    // Its record goes to telemetry only, built as every record is: the model as named, nothing charged.
    const seen = p.telemetry.refused[0];
    assert.equal(seen?.id, r.id);
    assert.equal(seen?.model, 'acme/chat');
    assert.equal(seen?.status, 'error');
    assert.equal(seen?.errorCode, 'insufficient_quota');
    assert.equal(seen?.costNanos, 0n);
    assert.equal(seen?.provider, null);
    assert.deepEqual(seen?.attempts, []);
    assert.equal(seen?.holdRowWritten, false);
  });

  it('moderation runs after admission (only for moderated endpoints): 403, the hold released, nothing charged, the record kept', async () => {
    const p = harness();
    const before = p.balance();
    const r = await p.call(chat('acme/moderated', 'I will kill the process'));
    assert.equal(r.refused, null, 'admitted: moderation is not an admission refusal');
    assert.equal(r.outcome?.execution.error?.code, 'content_filtered');
    assert.deepEqual(p.upstream.calls, []);
    assert.equal(p.balance(), before);
    assert.equal(p.holds(), 0);
    const record = p.record(r.id ?? '');
    assert.equal(record?.status, 'error');
    assert.equal(record?.errorCode, 'content_filtered');
    assert.equal(record?.costNanos, 0n);
    assert.deepEqual(await p.refusals(), {});
  });

  it('max_in_flight: a second request while the first holds the lease is 429; the lease is given back when the first has run', async () => {
    const p = harness({ maxInFlight: 1 });
    const first = await p.pipeline.admit(p.auth(), chat('acme/chat', 'one'), { dialect: 'chat', httpReferer: null, xTitle: null });
    const second = await p.call(chat('acme/chat', 'two'));
    assert.equal(second.refused?.status, 429);
    assert.equal(p.holds(), 1, 'only the first request holds credits');
    await p.pipeline.run(first, new CollectingSink(), new AbortController());
    const third = await p.call(chat('acme/chat', 'three'));
    assert.equal(third.refused, null);
  });

  it('management keys cannot call models: 403 before anything else', async () => {
    const p = harness({ balanceNanos: 0n });
    p.accounts.createKey({
      hash: 'hash_m',
      accountId: 'acct_1',
      name: 'm',
      label: 'sk-sy-v1-m...m',
      limitNanos: null,
      isManagement: true,
      expiresAt: null,
      now: '2026-01-01T00:00:00.000Z',
    });
    const key = p.accounts.getKey('hash_m');
    assert.ok(key !== undefined);
    await assert.rejects(
      p.pipeline.admit({ ...p.auth(), key }, chat('nope/unknown', 'hi'), { dialect: 'chat', httpReferer: null, xTitle: null }),
      { code: 'forbidden' },
    );
  });
});

describe('settlement and the record of each outcome', () => {
  it('success: the exact cost charged, the hold released, every field of the record', async () => {
    const p = harness();
    p.upstream.scripts.set('first', { kind: 'answer', text: 'hi there', usage: USAGE });
    const before = p.balance();
    const r = await p.call(chat('acme/chat', 'hello', { ...ORDERED, user: 'end-user-7' }));
    assert.equal(r.outcome?.execution.error, null);
    assert.equal(r.outcome?.cost?.totalNanos, COST);
    assert.equal(p.balance(), before - COST);
    assert.equal(p.holds(), 0);
    const rec = p.record(r.id ?? '');
    assert.ok(rec !== undefined);
    assert.equal(rec.accountId, 'acct_1');
    assert.equal(rec.keyHash, 'hash_1');
    assert.equal(rec.model, 'acme/chat');
    assert.equal(rec.provider, 'first');
    assert.equal(rec.upstreamModel, 'first-model');
    assert.equal(rec.upstreamId, 'up-1');
    assert.equal(rec.dialect, 'chat');
    assert.equal(rec.streamed, false);
    assert.equal(rec.cancelled, false);
    assert.equal(rec.status, 'success');
    assert.equal(rec.errorCode, null);
    assert.equal(rec.finishReason, 'stop');
    assert.equal(rec.nativeFinishReason, 'end_turn');
    assert.deepEqual(
      [rec.tokensPrompt, rec.tokensCompletion, rec.tokensCacheRead, rec.tokensCacheWrite, rec.tokensReasoning],
      [10, 5, 0, 0, 0],
    );
    assert.equal(rec.costNanos, COST);
    assert.equal(rec.costBreakdown?.prompt, '0.00001');
    assert.equal(rec.costBreakdown?.completion, '0.00001');
    assert.equal(rec.attempts.length, 1);
    assert.equal(rec.xTitle, 'harness');
    assert.equal(rec.httpReferer, null);
    assert.equal(rec.endUser, 'end-user-7');
    assert.equal(rec.cacheHit, false);
    assert.equal(rec.byok, undefined);
    assert.equal(rec.guardrails, undefined);
    assert.ok(rec.latencyMs !== null && rec.latencyMs >= 0);
    // The record telemetry saw is the one stored.
    assert.equal(p.telemetry.ended.at(-1)?.costNanos, COST);
  });

  it('an upstream error on every endpoint: nothing charged, the hold released, the record names the error and each attempt', async () => {
    const p = harness();
    p.upstream.scripts.set('first', { kind: 'fail', status: 502 });
    p.upstream.scripts.set('second', { kind: 'fail', status: 502 });
    const before = p.balance();
    const r = await p.call(chat('acme/chat', 'hello', ORDERED));
    assert.equal(r.outcome?.execution.error?.code, 'provider_error');
    assert.equal(p.balance(), before);
    assert.equal(p.holds(), 0);
    const rec = p.record(r.id ?? '');
    assert.equal(rec?.status, 'error');
    assert.equal(rec?.errorCode, 'provider_error');
    assert.equal(rec?.provider, null, 'no attempt served');
    assert.equal(rec?.model, 'acme/chat', 'the model asked for');
    assert.equal(rec?.costNanos, 0n);
    assert.deepEqual(rec?.attempts.map((a) => (a as { provider: string }).provider).slice(0, 2), ['first', 'second']);
  });

  it('fallback to a second endpoint: served and charged there, both attempts recorded', async () => {
    const p = harness();
    p.upstream.scripts.set('first', { kind: 'fail', status: 503 });
    p.upstream.scripts.set('second', { kind: 'answer', text: 'from second', usage: USAGE });
    const before = p.balance();
    const r = await p.call(chat('acme/chat', 'hello', ORDERED));
    assert.equal(r.outcome?.execution.error, null);
    assert.deepEqual(p.upstream.calls, ['first', 'second']);
    assert.equal(r.outcome?.served?.endpoint.provider.id, 'second');
    assert.equal(p.balance(), before - COST);
    const rec = p.record(r.id ?? '');
    assert.equal(rec?.status, 'success');
    assert.equal(rec?.provider, 'second');
    assert.equal(rec?.upstreamModel, 'second-model');
    assert.equal(rec?.attempts.length, 2);
    assert.equal((rec?.attempts[0] as { errorCode: string | null }).errorCode, 'provider_error');
  });

  it('the client leaves mid-stream: no failover, what was produced is estimated and charged, the record cancelled', async () => {
    const p = harness();
    p.upstream.scripts.set('first', { kind: 'stall', text: 'a partial answer that the client saw the start of' });
    const abort = new AbortController();
    const client = { left: false };
    const sink = new CollectingSink(true);
    sink.onPart = (part) => {
      if (part.type === 'text-delta' && !client.left) {
        client.left = true;
        abort.abort(new Error('client left'));
      }
    };
    const before = p.balance();
    const r = await p.call(chat('acme/chat', 'hello', { ...ORDERED, stream: true }), { sink, abort, client });
    assert.equal(r.outcome?.execution.cancelled, true);
    assert.deepEqual(p.upstream.calls, ['first'], 'no other endpoint for a client that left');
    const cost = r.outcome?.cost?.totalNanos ?? 0n;
    assert.ok(cost > 0n, 'the tokens produced are charged (estimated: the upstream never reported usage)');
    assert.equal(p.balance(), before - cost);
    assert.equal(p.holds(), 0);
    const rec = p.record(r.id ?? '');
    assert.equal(rec?.cancelled, true);
    assert.equal(rec?.status, 'error');
    assert.equal(rec?.streamed, true);
    assert.equal(rec?.provider, 'first');
    assert.ok((rec?.tokensCompletion ?? 0) > 0);
    assert.equal(
      sink.parts.some((part) => part.type === 'usage'),
      false,
      'no usage is sent to a client that left',
    );
  });
});

describe('guardrails on the record', () => {
  it('a redaction: the upstream reads the placeholder; the record lists the rule, never the text', async () => {
    const p = harness({
      guardrails: [
        { detector: 'email', action: 'redact' },
        { detector: 'payment_card', action: 'block' },
      ],
    });
    const r = await p.call(chat('acme/chat', 'write to jane@example.com', ORDERED));
    assert.equal(r.outcome?.execution.error, null);
    assert.equal(p.upstream.prompts[0], 'write to [EMAIL]');
    const rec = p.record(r.id ?? '');
    assert.deepEqual(rec?.guardrails, [{ name: 'email', detector: 'email', action: 'redact' }]);
    assert.equal(JSON.stringify(rec, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes('jane@'), false);
  });

  it("a block: refused before the hold, no record stored; the refusal's record (telemetry) names the rule", async () => {
    const p = harness({ guardrails: [{ detector: 'payment_card', action: 'block', name: 'cards' }] });
    const r = await p.call(chat('acme/chat', 'card 4111 1111 1111 1111'));
    assert.equal(r.refused?.code, 'content_filtered');
    assert.deepEqual(p.upstream.calls, []);
    assert.equal(p.recordCount(), 0);
    assert.equal(p.holds(), 0);
    assert.deepEqual(await p.refusals(), { content_filtered: 1 });
    assert.deepEqual(p.telemetry.refused[0]?.guardrails, [{ name: 'cards', detector: 'payment_card', action: 'block' }]);
  });
});
