import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CanonicalRequest, Message } from '../../canonical/request.ts';
import { estimateRequestTokens } from '../../canonical/estimate-tokens.ts';
import {
  DEFAULT_CACHE_TTL_MS,
  LONG_CACHE_TTL_MS,
  mayUsePromptCache,
  MIN_CACHED_PROMPT_TOKENS,
  promptCacheKeys,
} from './prompt-cache-keys.ts';

const text = (t: string, ttl?: string) =>
  ttl === undefined
    ? { type: 'text' as const, text: t }
    : { type: 'text' as const, text: t, cacheControl: { type: 'ephemeral' as const, ttl } };
const sys: Message = { role: 'system', content: [text('You are terse.')] };
const u = (t: string): Message => ({ role: 'user', content: [text(t)] });
const a = (t: string): Message => ({ role: 'assistant', content: [text(t)] });

function req(messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { models: [{ model: 'acme/m' }], messages, sampling: {}, stream: false, extra: {}, ...extra };
}

describe('promptCacheKeys', () => {
  it("the key a turn is remembered under is among the next turn's lookups", () => {
    const t1 = promptCacheKeys('acct', 'acme/m', req([sys, u('q1')]));
    const t2 = promptCacheKeys('acct', 'acme/m', req([sys, u('q1'), a('r1'), u('q2')]));
    const t3 = promptCacheKeys('acct', 'acme/m', req([sys, u('q1'), a('r1'), u('q2'), a('r2'), u('q3')]));
    assert.ok(t2.lookup.includes(t1.store));
    assert.ok(t3.lookup.includes(t2.store));
    assert.equal(t1.cacheable, false);
    assert.equal(t1.ttlMs, DEFAULT_CACHE_TTL_MS);
  });

  it('without tools or system messages there is no shared head: two conversations share no key', () => {
    const one = promptCacheKeys('acct', 'acme/m', req([u('first conversation')]));
    const two = promptCacheKeys('acct', 'acme/m', req([u('second conversation')]));
    for (const k of one.lookup) assert.ok(!two.lookup.includes(k));
    assert.notEqual(one.store, two.store);
    // The first turn is remembered under its whole prompt, which the next turn begins with.
    const next = promptCacheKeys('acct', 'acme/m', req([u('first conversation'), a('r1'), u('q2')]));
    assert.ok(next.lookup.includes(one.store));
  });

  it('never the same keys for two accounts or two models', () => {
    const r = req([sys, u('q1')]);
    const one = promptCacheKeys('acct-1', 'acme/m', r);
    const two = promptCacheKeys('acct-2', 'acme/m', r);
    const other = promptCacheKeys('acct-1', 'acme/n', r);
    for (const k of one.lookup) {
      assert.ok(!two.lookup.includes(k));
      assert.ok(!other.lookup.includes(k));
    }
  });

  it('cache_control: remembered up to the last breakpoint, markers ignored, a 1 h breakpoint makes the TTL 1 h', () => {
    const marked: Message = { role: 'user', content: [text('q1', '1h')] };
    const t1 = promptCacheKeys('acct', 'acme/m', req([sys, marked]));
    assert.equal(t1.cacheable, true);
    assert.equal(t1.ttlMs, LONG_CACHE_TTL_MS);
    // Next turn the client moved its breakpoint to the new message: the old prefix still matches.
    const t2 = promptCacheKeys('acct', 'acme/m', req([sys, u('q1'), a('r1'), { role: 'user', content: [text('q2', '5m')] }]));
    assert.ok(t2.lookup.includes(t1.store));
    assert.equal(t2.ttlMs, DEFAULT_CACHE_TTL_MS);
  });

  it("keys are the SHA-256 of the prefix's JSON without any cacheControl member, markers or not (the fast path changes no key)", () => {
    // The reference: every cacheControl member dropped by a replacer, at any depth.
    const drop = (k: string, v: unknown): unknown => (k === 'cacheControl' ? undefined : v);
    const expected = (tools: unknown[], messages: Message[]): string => {
      const h = createHash('sha256').update('acct\nacme/m\nprefix\n').update(JSON.stringify(tools, drop));
      for (const m of messages) h.update(`${JSON.stringify(m, drop)}\n`);
      return h.digest('hex');
    };
    // A tool whose schema names a parameter "cacheControl", and a message quoting the word.
    const tools = [
      {
        name: 'set',
        parameters: { type: 'object', properties: { cacheControl: { type: 'string' } } },
        cacheControl: { type: 'ephemeral' as const },
      },
    ];
    const quoting = u('"cacheControl" is a field name');
    for (const messages of [
      [sys, u('plain')],
      [sys, { role: 'user', content: [text('marked', '5m')] } as Message],
      [sys, quoting],
    ]) {
      const keys = promptCacheKeys('acct', 'acme/m', req(messages, { tools }));
      assert.equal(keys.lookup[0], expected(tools, messages));
    }
    // Tools whose schemas name no cacheControl take the text built from each schema's one serialization: the same key.
    const plainTools = [
      {
        name: 'read',
        description: 'Reads a "file"\n',
        parameters: { type: 'object', properties: { path: { type: 'string', description: 'ünïcode ✓' } }, required: ['path'] },
        strict: true,
        cacheControl: { type: 'ephemeral' as const, ttl: '1h' as const },
      },
      { name: 'none', description: undefined, parameters: {} },
    ];
    assert.equal(
      promptCacheKeys('acct', 'acme/m', req([sys, u('q')], { tools: plainTools })).lookup[0],
      expected(plainTools, [sys, u('q')]),
    );
    const noTools = promptCacheKeys('acct', 'acme/m', req([sys, u('q')]));
    assert.equal(noTools.lookup[0], expected([], [sys, u('q')]));
  });

  it('prompt_cache_key: the key is that string, the same for every turn', () => {
    const t1 = promptCacheKeys('acct', 'acme/m', req([sys, u('q1')], { promptCacheKey: 'conv-1' }));
    const t2 = promptCacheKeys('acct', 'acme/m', req([u('other')], { promptCacheKey: 'conv-1' }));
    assert.deepEqual(t1.lookup, [t1.store]);
    assert.equal(t1.store, t2.store);
    assert.equal(t1.cacheable, true);
  });

  it('bounded: a long conversation looks up at most 33 prefixes, the head among them', () => {
    const msgs: Message[] = [sys];
    for (let i = 0; i < 100; i++) msgs.push(u(`q${i}`), a(`r${i}`));
    const keys = promptCacheKeys('acct', 'acme/m', req(msgs));
    assert.equal(keys.lookup.length, 33);
    assert.equal(keys.lookup.at(-1), promptCacheKeys('acct', 'acme/m', req([sys, u('x')])).lookup.at(-1));
  });

  it('sticky routing has nothing to do for a prompt too short for any provider to cache, unless it asks for caching', () => {
    const short = req([sys, u('What does a gateway do?')]);
    assert.ok(estimateRequestTokens(short) < MIN_CACHED_PROMPT_TOKENS);
    assert.equal(mayUsePromptCache(short, estimateRequestTokens(short)), false);
    assert.equal(mayUsePromptCache(req([sys, u('q')], { promptCacheKey: 'conv-1' }), 10), true);
    assert.equal(mayUsePromptCache(req([sys, { role: 'user', content: [text('q', '5m')] }]), 10), true);
    const long = req([sys, u('Explain each step of the reasoning with care and examples. '.repeat(10))]);
    assert.equal(mayUsePromptCache(long, estimateRequestTokens(long)), true);
  });
});
