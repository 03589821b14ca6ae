import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldStreamParts } from '../../../src/canonical/fold-stream-parts.ts';
import type { Message } from '../../../src/canonical/request.ts';
import type { EmulatorBlock } from '../../emulators/anthropic-messages-emulator.ts';
import { anthropicRequest, useAnthropicEmulator } from './anthropic-test-helpers.ts';

// Anthropic in, Anthropic out: an answer decoded into canonical parts and folded, then sent
// back as the next turn, must reach Anthropic with its thinking signatures, redacted
// thinking and cache breakpoints exactly as they were, or Anthropic rejects the turn.

const h = useAnthropicEmulator();

const TOOL = {
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  cacheControl: { type: 'ephemeral' as const, ttl: '1h' },
};

// Signatures and redacted data are opaque base64 with `+`, `/` and `=`: any re-encoding shows.
const ANSWER: EmulatorBlock[] = [
  { type: 'thinking', thinking: 'The user wants a lookup.\nFirst: "q".', signature: 'EqQBCkgIBxABGAIiQO+/x9=+/==' },
  { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va/+Zm9vYmFy==' },
  { type: 'tool_use', id: 'toolu_01XyZ', name: 'lookup', arguments: '{"q":"caf\\u00e9 ☕","n":[1,2.5,null]}' },
  { type: 'thinking', thinking: 'Interleaved: after the call.', signature: 'ErcBsecond/sig+==' },
  { type: 'text', text: 'Looking it up.' },
];

/** What Anthropic sent, as it must come back in the next request. */
const REPLAY = [
  { type: 'thinking', thinking: 'The user wants a lookup.\nFirst: "q".', signature: 'EqQBCkgIBxABGAIiQO+/x9=+/==' },
  { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va/+Zm9vYmFy==' },
  { type: 'tool_use', id: 'toolu_01XyZ', name: 'lookup', input: { q: 'café ☕', n: [1, 2.5, null] } },
  { type: 'thinking', thinking: 'Interleaved: after the call.', signature: 'ErcBsecond/sig+==' },
  { type: 'text', text: 'Looking it up.' },
];

describe('anthropic round trip: decode → fold → encode', () => {
  for (const stream of [false, true]) {
    it(`replays thinking, redacted thinking, tool calls and cache breakpoints byte for byte (stream=${stream})`, async () => {
      const first: Message[] = [
        { role: 'system', content: [{ type: 'text', text: 'Long system prompt.', cacheControl: { type: 'ephemeral', ttl: '1h' } }] },
        { role: 'user', content: [{ type: 'text', text: 'Look up café.', cacheControl: { type: 'ephemeral' } }] },
      ];
      h.emu.enqueue({ blocks: ANSWER });
      const answer = await h.run(anthropicRequest({ stream, messages: first, tools: [TOOL], reasoning: { maxTokens: 2048 } }));
      const { response, error } = foldStreamParts(answer.parts);
      assert.equal(error, null);

      const next: Message[] = [
        ...first,
        { role: 'assistant', content: response.content },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'toolu_01XyZ', content: 'found', cacheControl: { type: 'ephemeral' } }],
        },
      ];
      await h.run(anthropicRequest({ stream, messages: next, tools: [TOOL], reasoning: { maxTokens: 2048 } }));
      const sent = h.emu.requests[1]!;
      assert.equal(sent.headers['anthropic-beta'], 'interleaved-thinking-2025-05-14');
      const body = sent.body;
      assert.equal(JSON.stringify(body.messages[1]), JSON.stringify({ role: 'assistant', content: REPLAY }));
      assert.deepEqual(body.system, [{ type: 'text', text: 'Long system prompt.', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
      assert.deepEqual(body.messages[0], {
        role: 'user',
        content: [{ type: 'text', text: 'Look up café.', cache_control: { type: 'ephemeral' } }],
      });
      assert.deepEqual(body.messages[2], {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01XyZ', content: 'found', cache_control: { type: 'ephemeral' } }],
      });
      assert.deepEqual(body.tools[0].cache_control, { type: 'ephemeral', ttl: '1h' });
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048 });
    });

    it(`hidden reasoning: display omitted upstream, the empty thinking and its signature replayed byte for byte (stream=${stream})`, async () => {
      const first: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Look up café.' }] }];
      const hidden = { maxTokens: 2048, exclude: true };
      // What Anthropic answers with display: 'omitted': the thinking text empty, the signature whole.
      h.emu.enqueue({
        blocks: [
          { type: 'thinking', thinking: '', signature: 'EqQBomitted/sig+==' },
          { type: 'tool_use', id: 'toolu_01XyZ', name: 'lookup', arguments: '{"q":"café"}' },
        ],
      });
      const answer = await h.run(anthropicRequest({ stream, messages: first, tools: [TOOL], reasoning: hidden }));
      assert.deepEqual(h.emu.requests[0]!.body.thinking, { type: 'enabled', budget_tokens: 2048, display: 'omitted' });
      const { response, error } = foldStreamParts(answer.parts);
      assert.equal(error, null);
      assert.deepEqual(response.content[0], { type: 'reasoning', text: '', signature: 'EqQBomitted/sig+==' });

      const next: Message[] = [
        ...first,
        { role: 'assistant', content: response.content },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01XyZ', content: 'found' }] },
      ];
      await h.run(anthropicRequest({ stream, messages: next, tools: [TOOL], reasoning: hidden }));
      const body = h.emu.requests[1]!.body;
      assert.equal(
        JSON.stringify(body.messages[1]),
        JSON.stringify({
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: '', signature: 'EqQBomitted/sig+==' },
            { type: 'tool_use', id: 'toolu_01XyZ', name: 'lookup', input: { q: 'café' } },
          ],
        }),
      );
      assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 2048, display: 'omitted' });
    });
  }
});
