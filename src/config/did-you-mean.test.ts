import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestMatch, didYouMean, editDistance } from './did-you-mean.ts';

describe('did you mean', () => {
  it('counts edits, a swapped pair as one', () => {
    assert.equal(editDistance('base_url', 'base_url'), 0);
    assert.equal(editDistance('base_ulr', 'base_url'), 1);
    assert.equal(editDistance('opnai', 'openai'), 1);
    assert.equal(editDistance('', 'abc'), 3);
  });

  it('suggests the nearest candidate only when it is a likely typo', () => {
    assert.equal(closestMatch('base_ulr', ['id', 'kind', 'base_url', 'api_key']), 'base_url');
    assert.equal(closestMatch('opnai', ['openai', 'anthropic', 'openrouter']), 'openai');
    assert.equal(closestMatch('Timeout_MS', ['timeout_ms']), 'timeout_ms');
    assert.equal(closestMatch('nowhere', ['openai', 'anthropic']), undefined);
    assert.equal(closestMatch('x', ['id']), undefined);
    assert.equal(didYouMean('kidn', ['kind']), ' Did you mean "kind"?');
    assert.equal(didYouMean('zzzz', ['kind']), '');
  });
});
