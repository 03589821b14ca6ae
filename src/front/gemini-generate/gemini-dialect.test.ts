import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readGeminiKey } from './gemini-dialect.ts';

describe('readGeminiKey', () => {
  it('x-goog-api-key first, then ?key=, then Authorization: Bearer', () => {
    assert.equal(readGeminiKey({ 'x-goog-api-key': ' k1 ', authorization: 'Bearer k3' }, '/v1beta/models/m:generateContent?key=k2'), 'k1');
    assert.equal(readGeminiKey({ authorization: 'Bearer k3' }, '/v1beta/models/m:generateContent?alt=sse&key=k%2B2'), 'k+2');
    assert.equal(readGeminiKey({ authorization: 'Bearer k3' }, '/v1beta/models/m:generateContent?alt=sse'), 'k3');
    assert.equal(readGeminiKey({ 'x-goog-api-key': '' }, '/v1beta/models/m:generateContent'), undefined);
    assert.equal(readGeminiKey({}), undefined);
  });
});
