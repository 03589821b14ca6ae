import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { convertToGeminiContents } from './convert-to-gemini-contents.ts';
import { geminiToolCallId, SKIP_SIGNATURE } from './gemini-tool-call-id.ts';

const SIG = 'EpEgCo4gAb4+9vvWwdN+NkNi/CCwrqvF==';

describe('convertToGeminiContents: a tool round trip', () => {
  it('replays the signature carried in the id, names results after their calls, merges parallel results', () => {
    const signed = geminiToolCallId('QHiLaa6LBrb8vdIP', 0, SIG);
    const plain = geminiToolCallId('QHiLaa6LBrb8vdIP', 1, undefined);
    const { contents } = convertToGeminiContents([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'two cities', signature: 'anthropic-sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: signed, name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: plain, name: 'get_weather', arguments: '{"city":"Tokyo"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: signed, content: 'sunny' }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: plain,
            content: [
              { type: 'text', text: 'rain' },
              { type: 'image', url: 'https://x/y.png' },
            ],
            isError: true,
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
    assert.deepEqual(contents, [
      { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIG },
          { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'sunny' } } },
          { functionResponse: { name: 'get_weather', response: { error: 'rain' } } },
          { text: 'Thanks' },
        ],
      },
    ]);
  });

  it('prefers the signature on the part, and falls back to the skip sentinel for unsigned first calls only', () => {
    const { contents } = convertToGeminiContents([
      { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'a', arguments: '{}', signature: 'QUJD' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', content: 'ok' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_x', name: 'a', arguments: 'not json' },
          { type: 'tool-call', id: 'call_y', name: 'b', arguments: '[1]' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_x', content: 'ok' },
          { type: 'tool-result', toolCallId: 'elsewhere', name: 'b', content: 'ok' },
        ],
      },
    ]);
    assert.deepEqual(contents[0]!.parts, [{ functionCall: { name: 'a', args: {} }, thoughtSignature: 'QUJD' }]);
    assert.deepEqual(contents[2]!.parts, [
      { functionCall: { name: 'a', args: {} }, thoughtSignature: SKIP_SIGNATURE },
      { functionCall: { name: 'b', args: {} } },
    ]);
    assert.equal(contents[3]!.parts[1]!.functionResponse!.name, 'b', 'a result for an unseen call uses its own name');
  });

  it('leaves out assistant turns with nothing Gemini can take', () => {
    const { contents } = convertToGeminiContents([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'redacted-reasoning', data: 'xx' }] },
      { role: 'user', content: [{ type: 'text', text: 'b' }] },
    ]);
    assert.deepEqual(contents, [{ role: 'user', parts: [{ text: 'a' }, { text: 'b' }] }]);
  });
});
