import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { geminiToolCallId, signatureFromToolCallId, toolCallIdBase } from './gemini-tool-call-id.ts';

describe('thought signatures in tool-call ids', () => {
  it('carries a signature through the id verbatim, whatever its padding and characters', () => {
    for (const signature of ['EpEgCo4gAb4+9vvWwdN+NkNi/CCwrqv=', 'Ab+/Cd==', 'AbCd', 'x_y']) {
      const id = geminiToolCallId('resp1', 0, signature);
      if (signature === 'x_y') {
        // Not base64: it cannot ride in an id safely, so the id is a plain one.
        assert.equal(signatureFromToolCallId(id), undefined);
        continue;
      }
      assert.match(id, /^gsig_[A-Za-z0-9_-]+$/, 'ids stay within the characters every dialect accepts');
      assert.equal(signatureFromToolCallId(id), signature);
    }
  });

  it('gives calls without a signature a plain id, and ids from elsewhere carry none', () => {
    assert.equal(geminiToolCallId('abc', 2, undefined), 'call_abc2');
    for (const id of ['call_abc2', 'toolu_01A', 'call_5f3', 'gsig_', 'gsig_abc']) assert.equal(signatureFromToolCallId(id), undefined, id);
  });

  it('keeps ids of one answer distinct and derives the base from the response id', () => {
    const base = toolCallIdBase('QHiLaa6LBrb8vd-IPoNz_tsAg');
    assert.equal(base, 'QHiLaa6LBrb8vdIP');
    assert.equal(toolCallIdBase('ab'), 'ab00000000000000');
    assert.match(toolCallIdBase(undefined), /^[0-9a-f]{16}$/);
    // Fixed-length bases: answer "…1" call 1 and answer "…" call 11 cannot collide.
    assert.notEqual(geminiToolCallId(toolCallIdBase('a1'), 1, undefined), geminiToolCallId(toolCallIdBase('a'), 11, undefined));
  });
});
