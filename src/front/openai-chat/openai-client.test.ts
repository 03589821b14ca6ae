import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { decodeChatRequest } from './decode-chat-request.ts';
import { encodeChatResponse, type ChatResponseMeta } from './encode-chat-response.ts';
import { ChatStreamEncoder } from './encode-chat-stream.ts';
import { renderChatError } from './render-chat-error.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';

// The official openai client, fed by a fake fetch: what a user's code sees of this
// dialect's output, and what it sends that the decoder must accept.

const META: ChatResponseMeta = { id: 'gen-9', created: 1770000000, model: 'openai/gpt-4o', provider: 'openai', excludeReasoning: false };
const USAGE = { input: 20, cacheRead: 0, cacheWrite: 0, output: 8, reasoning: 0 };

function clientAnswering(respond: (body: unknown) => Response): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://gateway.test/v1',
    maxRetries: 0,
    fetch: async (_url: string | URL | Request, init?: RequestInit) => respond(JSON.parse(String(init?.body))),
  });
}

function sse(text: string): Response {
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
}

const PARTS: StreamPart[] = [
  { type: 'text-delta', text: 'Let me check.' },
  { type: 'tool-call-start', index: 1, id: 'call_a', name: 'weather' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{"city":' },
  { type: 'tool-call-start', index: 2, id: 'call_b', name: 'time' },
  { type: 'tool-call-delta', index: 2, argumentsDelta: '{"tz":"CET"}' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '"Paris"}' },
  { type: 'finish', reason: { unified: 'tool_calls', raw: 'tool_calls' } },
  { type: 'usage', usage: USAGE },
];

function streamText(parts: StreamPart[], error?: GatewayError): string {
  const enc = new ChatStreamEncoder(META);
  let out = enc.start();
  for (const p of parts) out += enc.push(p);
  return error ? out + enc.error(error) : out + enc.end(0.001);
}

describe('openai client against the chat dialect', () => {
  it('sends requests the decoder accepts', async () => {
    let sent: unknown;
    const client = clientAnswering((body) => {
      sent = body;
      return Response.json(
        encodeChatResponse({ content: [{ type: 'text', text: 'ok' }], finish: { unified: 'stop', raw: 'stop' }, usage: USAGE }, META),
      );
    });
    await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      max_completion_tokens: 100,
      stop: ['END'],
      stream_options: { include_usage: true },
      reasoning_effort: 'low',
    });
    const req = decodeChatRequest(sent);
    assert.equal(req.messages.length, 4);
    assert.equal(req.maxOutputTokens, 100);
    assert.deepEqual(req.reasoning, { effort: 'low' });
    assert.deepEqual(req.toolChoice, { type: 'auto' });
  });

  it('reads a non-streamed answer', async () => {
    const client = clientAnswering(() =>
      Response.json(
        encodeChatResponse(
          {
            content: [{ type: 'text', text: 'Hello' }],
            finish: { unified: 'stop', raw: 'stop' },
            usage: USAGE,
          },
          { ...META, cost: 0.002 },
        ),
      ),
    );
    const res = await client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(res.choices[0]!.message.content, 'Hello');
    assert.equal(res.choices[0]!.finish_reason, 'stop');
    assert.equal(res.usage?.total_tokens, 28);
  });

  it('streams: chunks, assembled parallel tool calls and the usage chunk', async () => {
    const client = clientAnswering(() => sse(streamText(PARTS)));
    const stream = client.chat.completions.stream({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    assert.equal(message.content, 'Let me check.');
    assert.deepEqual(
      message.tool_calls?.map((c) => (c.type === 'function' ? [c.id, c.function.name, c.function.arguments] : null)),
      [
        ['call_a', 'weather', '{"city":"Paris"}'],
        ['call_b', 'time', '{"tz":"CET"}'],
      ],
    );
    assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(final.usage?.prompt_tokens, 20);
  });

  it('surfaces an HTTP error with its code and param', async () => {
    let err: GatewayError | undefined;
    try {
      decodeChatRequest({ messages: [{ role: 'user', content: 'x' }], top_p: 5 });
    } catch (e) {
      err = e as GatewayError;
    }
    const rendered = renderChatError(err!);
    const client = clientAnswering(() => Response.json(rendered.body, { status: rendered.status, headers: rendered.headers }));
    await assert.rejects(client.chat.completions.create({ model: 'x/y', messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIError);
      assert.equal(e.status, 400);
      assert.equal(e.code, 'invalid_parameter');
      assert.equal(e.param, 'top_p');
      assert.equal(e.type, 'invalid_request_error');
      return true;
    });
  });

  it('surfaces a mid-stream error', async () => {
    const client = clientAnswering(() => sse(streamText(PARTS.slice(0, 2), new GatewayError('provider_error', 'Upstream reset'))));
    const stream = await client.chat.completions.create({ model: 'x/y', messages: [{ role: 'user', content: 'x' }], stream: true });
    await assert.rejects(
      async () => {
        for await (const _chunk of stream) {
          /* drain */
        }
      },
      (e: unknown) => e instanceof OpenAI.APIError && e.message.includes('Upstream reset'),
    );
  });
});
