import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeChatResponse, type ChatResponseMeta } from './encode-chat-response.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';

const META: ChatResponseMeta = {
  id: 'gen-123',
  created: 1770000000,
  model: 'openai/gpt-4o',
  provider: 'openai',
  excludeReasoning: false,
};
const USAGE = { input: 100, cacheRead: 40, cacheWrite: 10, output: 50, reasoning: 20 };

describe('encodeChatResponse', () => {
  it('encodes a text answer in the OpenAI wire shape', () => {
    const resp: CanonicalResponse = {
      content: [
        { type: 'text', text: 'Hello, ' },
        { type: 'text', text: 'world' },
      ],
      finish: { unified: 'stop', raw: 'end_turn' },
      usage: USAGE,
    };
    assert.deepEqual(encodeChatResponse(resp, { ...META, cost: 0.00123 }), {
      id: 'gen-123',
      object: 'chat.completion',
      created: 1770000000,
      model: 'openai/gpt-4o',
      provider: 'openai',
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello, world', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
          native_finish_reason: 'end_turn',
        },
      ],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 20 },
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 10,
        reasoning_tokens: 20,
        cost: 0.00123,
      },
    });
  });

  it('encodes tool calls with null content and reasoning', () => {
    const resp: CanonicalResponse = {
      content: [
        { type: 'reasoning', text: 'Need weather.', signature: 'sig' },
        { type: 'redacted-reasoning', data: 'opaque' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}' },
      ],
      finish: { unified: 'tool_calls', raw: 'tool_use' },
      usage: USAGE,
    };
    const out = encodeChatResponse(resp, META);
    assert.deepEqual(out.choices[0].message, {
      role: 'assistant',
      content: null,
      refusal: null,
      reasoning: 'Need weather.',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    });
    assert.equal(out.choices[0].finish_reason, 'tool_calls');
    assert.equal('cost' in out.usage, false);
  });

  it('omits reasoning when the client excluded it', () => {
    const resp: CanonicalResponse = {
      content: [
        { type: 'reasoning', text: 'secret' },
        { type: 'text', text: 'ok' },
      ],
      finish: { unified: 'stop', raw: null },
      usage: USAGE,
    };
    const message = encodeChatResponse(resp, { ...META, excludeReasoning: true }).choices[0].message;
    assert.equal('reasoning' in message, false);
    assert.equal(message.content, 'ok');
  });

  it('reports audio tokens when known', () => {
    const resp: CanonicalResponse = { content: [], finish: null, usage: { ...USAGE, audioInput: 5, audioOutput: 7 } };
    const out = encodeChatResponse(resp, META);
    assert.equal(out.usage.prompt_tokens_details.audio_tokens, 5);
    assert.equal(out.usage.completion_tokens_details.audio_tokens, 7);
    assert.equal(out.usage.audio_tokens, 12);
  });

  it('without usage or finish: zero counts, no flat fields, null finish reasons', () => {
    const out = encodeChatResponse({ content: [], finish: null, usage: null }, META);
    assert.deepEqual(out.usage, {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    assert.equal(out.choices[0].finish_reason, null);
    assert.equal(out.choices[0].native_finish_reason, null);
    assert.equal(out.choices[0].message.content, null);
  });
});

it('encodes the cited URLs of an answer as message.citations', () => {
  const citations = ['https://x.com/a/status/1'];
  const resp: CanonicalResponse = {
    content: [{ type: 'text', text: 'News.' }],
    finish: { unified: 'stop', raw: 'stop', citations },
    usage: USAGE,
  };
  assert.deepEqual(encodeChatResponse(resp, META).choices[0].message, { role: 'assistant', content: 'News.', refusal: null, citations });
  const none: CanonicalResponse = { ...resp, finish: { unified: 'stop', raw: 'stop' } };
  assert.equal('citations' in encodeChatResponse(none, META).choices[0].message, false);
});

describe('encodeChatResponse: generated audio and images', () => {
  it('encodes audio as message.audio and images as message.images', () => {
    const resp: CanonicalResponse = {
      content: [
        { type: 'audio-output', id: 'audio_1', data: 'UklGRg==', transcript: 'Hi there.', format: 'wav', expiresAt: 1770003600 },
        { type: 'image-output', url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'image-output', url: 'https://example.com/cat.png' },
      ],
      finish: { unified: 'stop', raw: 'stop' },
      usage: { ...USAGE, audioOutput: 33 },
    };
    const out = encodeChatResponse(resp, META);
    assert.deepEqual(out.choices[0].message, {
      role: 'assistant',
      content: null,
      refusal: null,
      audio: { id: 'audio_1', data: 'UklGRg==', transcript: 'Hi there.', format: 'wav', expires_at: 1770003600 },
      images: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      ],
    });
    assert.equal(out.usage.completion_tokens_details.audio_tokens, 33);
  });

  it("gives audio without an id or expiry (not OpenAI's) as it is, and only the first of several", () => {
    const resp: CanonicalResponse = {
      content: [
        { type: 'text', text: 'Listen:' },
        { type: 'audio-output', data: 'AAAA', transcript: '', format: 'pcm16' },
        { type: 'audio-output', id: 'audio_2', data: 'BBBB', transcript: 'later' },
      ],
      finish: null,
      usage: null,
    };
    const message = encodeChatResponse(resp, META).choices[0].message;
    assert.equal(message.content, 'Listen:');
    assert.deepEqual(message.audio, { data: 'AAAA', transcript: '', format: 'pcm16' });
    assert.equal('images' in message, false);
  });
});
