import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest, FilePart } from '../canonical/request.ts';
import { moderatedTexts } from './moderated-texts.ts';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const withFile = (file: FilePart): CanonicalRequest => ({
  models: [],
  messages: [{ role: 'user', content: [file] }],
  sampling: {},
  stream: false,
  extra: {},
});

describe('moderatedTexts', () => {
  it('reads text files by media type, from base64 or a data: URI, percent-encoded or not', () => {
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: b64('plain'), mediaType: 'text/plain' })), ['plain']);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: `data:application/json;base64,${b64('{"a":1}')}` })), ['{"a":1}']);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: 'data:text/csv,a%2Cb' })), ['a,b']);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: b64('<x/>'), mediaType: 'application/vnd.foo+xml' })), ['<x/>']);
  });

  it('reads untyped bytes when they are UTF-8 text, and skips binaries, PDFs and files by URL', () => {
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: b64('no type, still text') })), ['no type, still text']);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: b64(Buffer.from([0xff, 0xfe, 0x00, 0x41])) })), []);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', data: b64('%PDF-1.7 text-looking'), mediaType: 'application/pdf' })), []);
    assert.deepEqual(moderatedTexts(withFile({ type: 'file', url: 'https://example.com/a.txt', mediaType: 'text/plain' })), []);
  });

  it('reads every role, tool calls and results, tool definitions and an answer schema', () => {
    const req: CanonicalRequest = {
      models: [],
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'sys' }] },
        { role: 'user', content: [{ type: 'text', text: 'user' }] },
        {
          role: 'assistant',
          refusal: 'no',
          content: [
            { type: 'reasoning', text: 'think' },
            { type: 'text', text: 'asst' },
            { type: 'tool-call', id: 'c', name: 'f', arguments: '{"q":1}' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: 'result' }] }] },
      ],
      tools: [{ name: 'f', description: 'desc', parameters: { type: 'object' } }],
      responseFormat: { type: 'json_schema', name: 's', schema: { title: 'T' } },
      sampling: {},
      stream: false,
      extra: {},
    };
    assert.deepEqual(moderatedTexts(req), [
      'sys',
      'user',
      'no',
      'think',
      'asst',
      '{"q":1}',
      'result',
      'f',
      'desc',
      '{"type":"object"}',
      '{"title":"T"}',
    ]);
  });

  it("reads a spoken turn's transcript; images, audio, redacted reasoning and generated images give no text", () => {
    const req: CanonicalRequest = {
      models: [],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', url: 'https://example.com/a.png' },
            { type: 'audio', data: b64('RIFF'), format: 'wav' },
            { type: 'text', text: 'look' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'redacted-reasoning', data: 'opaque' },
            { type: 'image-output', url: 'https://example.com/b.png' },
            { type: 'audio-output', data: b64('RIFF'), transcript: 'said aloud' },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c',
              content: [
                { type: 'image', url: 'https://example.com/c.png' },
                { type: 'text', text: 'seen' },
              ],
            },
          ],
        },
      ],
      sampling: {},
      stream: false,
      extra: {},
    };
    assert.deepEqual(moderatedTexts(req), ['look', 'said aloud', 'seen']);
  });
});
