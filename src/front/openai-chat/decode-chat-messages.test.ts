import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeChatRequest } from './decode-chat-request.ts';
import { assertRequestError } from '../shared/assert-gateway-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { Message } from '../../canonical/request.ts';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const PDF = 'data:application/pdf;base64,JVBERi0x';

function decodeMessages(messages: unknown[]): Message[] {
  return decodeChatRequest({ messages }).messages;
}
function decodeOne(message: unknown): Message {
  return decodeMessages([message])[0]!;
}
function rejects(messages: unknown[], code: ErrorCode, param: string): void {
  assertRequestError(() => decodeChatRequest({ messages }), code, param);
}
const user = (content: unknown) => ({ role: 'user', content });

describe('decodeChatMessages: roles', () => {
  it('system and developer become system messages', () => {
    assert.deepEqual(decodeOne({ role: 'system', content: 'Be brief.' }), {
      role: 'system',
      content: [{ type: 'text', text: 'Be brief.' }],
    });
    assert.deepEqual(
      decodeOne({
        role: 'developer',
        content: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
      }),
      {
        role: 'system',
        content: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
      },
    );
  });

  it('user messages keep their name', () => {
    assert.deepEqual(decodeOne({ role: 'user', content: 'hi', name: 'ann' }), {
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
      name: 'ann',
    });
  });

  it('assistant: reasoning, text, tool calls in order; arguments verbatim', () => {
    const msg = decodeOne({
      role: 'assistant',
      reasoning: 'Think first.',
      content: 'Calling tools.',
      name: 'bot',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"x": 1}' } },
        { id: 'call_2', function: { name: 'b', arguments: '' } },
      ],
    });
    assert.deepEqual(msg, {
      role: 'assistant',
      name: 'bot',
      content: [
        { type: 'reasoning', text: 'Think first.' },
        { type: 'text', text: 'Calling tools.' },
        { type: 'tool-call', id: 'call_1', name: 'a', arguments: '{"x": 1}' },
        { type: 'tool-call', id: 'call_2', name: 'b', arguments: '' },
      ],
    });
  });

  it('assistant content may be null, absent or empty; refusals are kept', () => {
    assert.deepEqual(decodeOne({ role: 'assistant', content: null }), { role: 'assistant', content: [] });
    assert.deepEqual(decodeOne({ role: 'assistant' }), { role: 'assistant', content: [] });
    assert.deepEqual(decodeOne({ role: 'assistant', content: '' }), { role: 'assistant', content: [] });
    assert.deepEqual(
      decodeOne({
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'refusal', refusal: 'No.' },
        ],
      }),
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'x' }],
        refusal: 'No.',
      },
    );
    assert.deepEqual(decodeOne({ role: 'assistant', content: null, refusal: 'No.' }), { role: 'assistant', content: [], refusal: 'No.' });
  });

  it('tool messages become a tool result', () => {
    assert.deepEqual(decodeOne({ role: 'tool', tool_call_id: 'call_1', content: '{"t": 20}' }), {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_1', content: '{"t": 20}' }],
    });
    assert.deepEqual(
      decodeOne({
        role: 'tool',
        tool_call_id: 'c',
        name: 'f',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image_url', image_url: { url: PNG } },
        ],
      }),
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            name: 'f',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image', url: PNG },
            ],
          },
        ],
      },
    );
  });

  it('the deprecated function role becomes a tool result keyed by name', () => {
    assert.deepEqual(decodeOne({ role: 'function', name: 'lookup', content: 'ok' }), {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'lookup', name: 'lookup', content: 'ok' }],
    });
  });

  it('rejects bad roles and message shapes', () => {
    rejects(['hi'], 'invalid_message', 'messages[0]');
    rejects([user('a'), { content: 'x' }], 'invalid_message', 'messages[1].role');
    rejects([{ role: 'bot', content: 'x' }], 'invalid_message', 'messages[0].role');
    rejects([{ role: 'user' }], 'invalid_message', 'messages[0].content');
    rejects([{ role: 'user', content: 5 }], 'invalid_message', 'messages[0].content');
    rejects([{ role: 'user', content: 'x', name: 1 }], 'invalid_message', 'messages[0].name');
    rejects([{ role: 'system' }], 'invalid_message', 'messages[0].content');
    rejects(
      [{ role: 'system', content: [{ type: 'image_url', image_url: { url: PNG } }] }],
      'invalid_message',
      'messages[0].content[0].type',
    );
    rejects([{ role: 'assistant', content: 5 }], 'invalid_message', 'messages[0].content');
    rejects(
      [{ role: 'assistant', content: [{ type: 'image_url', image_url: { url: PNG } }] }],
      'invalid_message',
      'messages[0].content[0].type',
    );
    rejects([{ role: 'assistant', content: [{ type: 'refusal' }] }], 'invalid_message', 'messages[0].content[0].refusal');
    rejects([{ role: 'assistant', reasoning: {} }], 'invalid_message', 'messages[0].reasoning');
    rejects([{ role: 'assistant', refusal: 1 }], 'invalid_message', 'messages[0].refusal');
    rejects([{ role: 'function', content: 'x' }], 'invalid_message', 'messages[0].name');
  });

  it('rejects tool messages without tool_call_id or content', () => {
    rejects([{ role: 'tool', content: 'x' }], 'invalid_message', 'messages[0].tool_call_id');
    rejects([{ role: 'tool', tool_call_id: 7, content: 'x' }], 'invalid_message', 'messages[0].tool_call_id');
    rejects([{ role: 'tool', tool_call_id: 'c' }], 'invalid_message', 'messages[0].content');
    rejects(
      [{ role: 'tool', tool_call_id: 'c', content: [{ type: 'file', file: { url: PDF } }] }],
      'invalid_message',
      'messages[0].content[0].type',
    );
  });

  it('rejects bad assistant tool calls', () => {
    const call = (c: unknown) => [{ role: 'assistant', content: null, tool_calls: [c] }];
    rejects([{ role: 'assistant', tool_calls: {} }], 'invalid_message', 'messages[0].tool_calls');
    rejects(call('x'), 'invalid_message', 'messages[0].tool_calls[0]');
    rejects(call({ function: { name: 'f', arguments: '{}' } }), 'invalid_message', 'messages[0].tool_calls[0].id');
    rejects(
      call({ id: 'c', type: 'custom', function: { name: 'f', arguments: '{}' } }),
      'invalid_message',
      'messages[0].tool_calls[0].type',
    );
    rejects(call({ id: 'c' }), 'invalid_message', 'messages[0].tool_calls[0].function');
    rejects(call({ id: 'c', function: { arguments: '{}' } }), 'invalid_message', 'messages[0].tool_calls[0].function.name');
    rejects(call({ id: 'c', function: { name: 'f' } }), 'invalid_message', 'messages[0].tool_calls[0].function.arguments');
    rejects(
      call({ id: 'c', function: { name: 'f', arguments: { a: 1 } } }),
      'invalid_message',
      'messages[0].tool_calls[0].function.arguments',
    );
  });
});

describe('decodeChatMessages: content parts', () => {
  it('maps text, image_url, file and input_audio', () => {
    const msg = decodeOne(
      user([
        { type: 'text', text: 'Look:' },
        { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'high' } },
        { type: 'image_url', image_url: { url: PNG } },
        { type: 'file', file: { filename: 'a.pdf', file_data: PDF } },
        { type: 'file', file: { url: 'https://x.test/b.pdf', type: 'application/pdf' } },
        { type: 'file', file: { data: 'JVBERi0x', type: 'application/pdf' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ]),
    );
    assert.deepEqual(msg.content, [
      { type: 'text', text: 'Look:' },
      { type: 'image', url: 'https://x.test/a.png', detail: 'high' },
      { type: 'image', url: PNG },
      { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', url: 'https://x.test/b.pdf', mediaType: 'application/pdf' },
      { type: 'file', data: 'JVBERi0x', mediaType: 'application/pdf' },
      { type: 'audio', data: 'UklGRg==', format: 'wav' },
    ]);
  });

  it('accepts an image_url given as a bare string', () => {
    assert.deepEqual(decodeOne(user([{ type: 'image_url', image_url: 'http://x.test/a.png' }])).content, [
      { type: 'image', url: 'http://x.test/a.png' },
    ]);
  });

  it('rejects unknown part types and malformed parts', () => {
    rejects([user(['text'])], 'invalid_message', 'messages[0].content[0]');
    rejects([user([{ text: 'x' }])], 'invalid_message', 'messages[0].content[0].type');
    rejects(
      [
        user([
          { type: 'text', text: 'a' },
          { type: 'video_url', video_url: {} },
        ]),
      ],
      'invalid_message',
      'messages[0].content[1].type',
    );
    rejects([user([{ type: 'input_text', text: 'x' }])], 'invalid_message', 'messages[0].content[0].type');
    rejects([user([{ type: 'text' }])], 'invalid_message', 'messages[0].content[0].text');
    rejects([user([{ type: 'text', text: 5 }])], 'invalid_message', 'messages[0].content[0].text');
  });

  it('rejects bad image parts', () => {
    rejects([user([{ type: 'image_url' }])], 'invalid_message', 'messages[0].content[0].image_url');
    rejects([user([{ type: 'image_url', image_url: {} }])], 'invalid_message', 'messages[0].content[0].image_url.url');
    rejects(
      [
        user('x'),
        user([
          { type: 'text', text: 'a' },
          { type: 'image_url', image_url: { url: 'ftp://x/a.png' } },
        ]),
      ],
      'invalid_message',
      'messages[1].content[1].image_url.url',
    );
    rejects([user([{ type: 'image_url', image_url: { url: 'a.png' } }])], 'invalid_message', 'messages[0].content[0].image_url.url');
    rejects([user([{ type: 'image_url', image_url: 'file:///etc/passwd' }])], 'invalid_message', 'messages[0].content[0].image_url');
    rejects(
      [user([{ type: 'image_url', image_url: { url: PNG, detail: 'max' } }])],
      'invalid_message',
      'messages[0].content[0].image_url.detail',
    );
  });

  it('rejects bad file and audio parts', () => {
    rejects([user([{ type: 'file' }])], 'invalid_message', 'messages[0].content[0].file');
    rejects([user([{ type: 'file', file: { filename: 'a.pdf' } }])], 'invalid_message', 'messages[0].content[0].file');
    rejects([user([{ type: 'file', file: { file_id: 'file-abc' } }])], 'unsupported_content', 'messages[0].content[0].file.file_id');
    rejects([user([{ type: 'file', file: { url: 'gopher://x' } }])], 'invalid_message', 'messages[0].content[0].file.url');
    rejects([user([{ type: 'file', file: { data: 5 } }])], 'invalid_message', 'messages[0].content[0].file.data');
    rejects([user([{ type: 'input_audio' }])], 'invalid_message', 'messages[0].content[0].input_audio');
    rejects(
      [user([{ type: 'input_audio', input_audio: { format: 'wav' } }])],
      'invalid_message',
      'messages[0].content[0].input_audio.data',
    );
    rejects([user([{ type: 'input_audio', input_audio: { data: 'x' } }])], 'invalid_message', 'messages[0].content[0].input_audio.format');
  });
});

describe('decodeChatMessages: cache_control', () => {
  const cached = (text: string, cc: unknown = { type: 'ephemeral' }) => ({ type: 'text', text, cache_control: cc });

  it('keeps cache_control on parts of every role', () => {
    const msgs = decodeMessages([
      { role: 'system', content: [cached('sys', { type: 'ephemeral', ttl: '1h' })] },
      user([cached('u'), { type: 'image_url', image_url: { url: PNG }, cache_control: { type: 'ephemeral', ttl: '5m' } }]),
      { role: 'assistant', content: [cached('a')] },
    ]);
    assert.deepEqual(msgs[0]!.content, [{ type: 'text', text: 'sys', cacheControl: { type: 'ephemeral', ttl: '1h' } }]);
    assert.deepEqual(msgs[1]!.content, [
      { type: 'text', text: 'u', cacheControl: { type: 'ephemeral' } },
      { type: 'image', url: PNG, cacheControl: { type: 'ephemeral', ttl: '5m' } },
    ]);
    assert.deepEqual(msgs[2]!.content, [{ type: 'text', text: 'a', cacheControl: { type: 'ephemeral' } }]);
  });

  it('allows 4 blocks and rejects the 5th, counting system parts', () => {
    const four = [{ role: 'system', content: [cached('s1'), cached('s2')] }, user([cached('u1'), cached('u2')])];
    decodeMessages(four);
    rejects(
      [...four, user([{ type: 'text', text: 'plain' }, cached('u3')])],
      'too_many_cache_control_blocks',
      'messages[2].content[1].cache_control',
    );
  });

  it('requires type ephemeral and a known ttl', () => {
    rejects([user([cached('x', { type: 'persistent' })])], 'invalid_message', 'messages[0].content[0].cache_control.type');
    rejects([user([cached('x', {})])], 'invalid_message', 'messages[0].content[0].cache_control.type');
    rejects([user([cached('x', 'ephemeral')])], 'invalid_message', 'messages[0].content[0].cache_control');
    rejects([user([cached('x', { type: 'ephemeral', ttl: '10m' })])], 'invalid_message', 'messages[0].content[0].cache_control.ttl');
  });
});
