import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalRequest } from '../canonical/request.ts';
import { compileModerationPattern, type ModerationPattern } from '../config/moderation-pattern.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import { ClearTextMemo, MEMO_MIN_CHARS } from './clear-text-memo.ts';
import { Moderator } from './moderator.ts';

// The rules read a long text once per account while it stays clear; the verdicts are the
// rules' own whatever the memo holds.

/** A pattern that counts the texts it reads. */
function counting(source: string): { pattern: ModerationPattern; reads: string[] } {
  const real = compileModerationPattern(source);
  const reads: string[] = [];
  const regex = {
    matcher: (text: string) => (reads.push(text), real.regex.matcher(text)),
    test: (text: string) => (reads.push(text), real.regex.test(text)),
  } as unknown as ModerationPattern['regex'];
  return { pattern: { source, regex }, reads };
}

const request = (...texts: string[]): CanonicalRequest => ({
  models: [{ model: 'acme/m' }],
  messages: texts.map((text) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })),
  sampling: {},
  stream: false,
  extra: {},
});

const signal = new AbortController().signal;
const long = `${'a tool description that every turn repeats. '.repeat(20)}`;

describe('moderation: clear long texts remembered', () => {
  it('a long clear text is read once per account; short ones every time; a changed text again', async () => {
    const { pattern, reads } = counting('forbidden\\s+words');
    const moderator = new Moderator([{ name: 'rule', patterns: [pattern] }], null, {} as UpstreamClient, 1_000_000);
    assert.ok(long.length >= MEMO_MIN_CHARS);
    for (let i = 0; i < 3; i++) assert.deepEqual(await moderator.check(request(long, 'short'), signal, 'acct-1'), { kind: 'clear' });
    assert.equal(reads.filter((t) => t === long).length, 1);
    assert.equal(reads.filter((t) => t === 'short').length, 3);
    // Another account's first request reads it again: what one account sent tells another nothing.
    await moderator.check(request(long), signal, 'acct-2');
    assert.equal(reads.filter((t) => t === long).length, 2);
    // The same long text with flagged words added is a new text: read, and flagged.
    const flagged = `${long} and then forbidden   words`;
    const verdict = await moderator.check(request(long, flagged), signal, 'acct-1');
    assert.equal(verdict.kind, 'flagged');
    // A flagged text is never remembered: flagged again.
    assert.equal((await moderator.check(request(flagged), signal, 'acct-1')).kind, 'flagged');
  });

  it('the memo keeps its most recently used entries up to its bound', () => {
    const memo = new ClearTextMemo(2);
    const [a, b, c] = ['a', 'b', 'c'].map((x) => memo.key('s', x.repeat(MEMO_MIN_CHARS))!);
    memo.remember(a!);
    memo.remember(b!);
    assert.ok(memo.has(a!)); // a is now the most recent
    memo.remember(c!);
    assert.equal(memo.size, 2);
    assert.ok(memo.has(a!) && memo.has(c!) && !memo.has(b!));
    assert.equal(memo.key('s', 'short'), null);
  });

  it('a text that is not well-formed UTF-16 has no key: its UTF-8 bytes would be those of the text with U+FFFD', () => {
    const memo = new ClearTextMemo();
    const text = 'x'.repeat(MEMO_MIN_CHARS);
    assert.equal(memo.key('s', `${text}\ud800`), null);
    assert.equal(memo.key('s', `\udc00${text}`), null);
    assert.notEqual(memo.key('s', `${text}\ufffd`), null);
    assert.notEqual(memo.key('s', `${text}\u{1F600}`), null); // a well-formed pair
  });
});
