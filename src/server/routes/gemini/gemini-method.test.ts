import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseGeminiPath } from './gemini-method.ts';

describe('parseGeminiPath', () => {
  it('the method follows the last colon; the model keeps its slashes and its own colons', () => {
    assert.deepEqual(parseGeminiPath('openai/gpt-4o:generateContent'), { model: 'openai/gpt-4o', method: 'generateContent' });
    assert.deepEqual(parseGeminiPath('openai/gpt-4o:free:streamGenerateContent'), {
      model: 'openai/gpt-4o:free',
      method: 'streamGenerateContent',
    });
    assert.deepEqual(parseGeminiPath('gemini-2.5-flash'), { model: 'gemini-2.5-flash', method: '' });
    assert.deepEqual(parseGeminiPath(':countTokens'), { model: ':countTokens', method: '' });
    assert.deepEqual(parseGeminiPath(''), { model: '', method: '' });
  });
});
