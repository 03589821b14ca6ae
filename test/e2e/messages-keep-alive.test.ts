import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { messagesDialect, MESSAGES_KEEP_ALIVE } from '../../src/front/anthropic-messages/messages-dialect.ts';
import { registerGenerationRoute } from '../../src/server/generation-route.ts';
import { installRouteAccess } from '../../src/server/route-access.ts';
import { gate, startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Anthropic `ping` events while the upstream is slow to answer. The messages route pings
// every 10 s; here the same dialect is mounted with a 100 ms interval on the test
// gateway's services. The upstream holds its answer until the test has seen the pings it
// waits for (a `held` step), so nothing depends on how fast the machine is.

const INTERVAL_MS = 100;
const PING = MESSAGES_KEEP_ALIVE.text;

/** Model `acme/slow` on two providers of the same emulator (the request orders them); `acme/alone` on one. */
function config(baseUrl: string): string {
  return `sim: false
providers:
  - id: first
    kind: openai
    base_url: ${baseUrl}
    api_key: k
  - id: second
    kind: openai
    base_url: ${baseUrl}
    api_key: k
models:
  - id: acme/slow
    name: Slow
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: first
        model: slow-a
        pricing: { prompt: "0.000001", completion: "0.000001" }
      - provider: second
        model: slow-b
        pricing: { prompt: "0.000002", completion: "0.000002" }
  - id: acme/alone
    name: Alone
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: first
        model: alone
        pricing: { prompt: "0.000001", completion: "0.000001" }
`;
}

/** The text of the answer's text deltas. */
function answerText(text: string): string {
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('event: content_block_delta'))
    .map((b) => JSON.parse(b.split('\n')[1]!.slice(6)).delta.text ?? '')
    .join('');
}

/** Reads a streamed answer: `next(cond)` reads until the text so far meets `cond`; `rest()` reads to the end. */
function streamReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async next(cond: (text: string) => boolean): Promise<string> {
      while (!cond(text)) {
        const { done, value } = await reader.read();
        if (done) assert.fail(`the stream ended before the awaited events: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    async rest(): Promise<string> {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    },
  };
}

const pings = (text: string) => eventNames(text).filter((n) => n === 'ping').length;

function postStream(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Event names in order, `ping` included. */
function eventNames(text: string): string[] {
  return text
    .split('\n\n')
    .filter((b) => b.length > 0)
    .map((b) => b.split('\n')[0]!.replace('event: ', ''));
}

describe('messages keep-alive: ping while the upstream is slow', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let app: FastifyInstance;
  let url: string;
  let headers: Record<string, string>;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: config(emu.baseUrl) });
    app = Fastify();
    // A bare app with the gateway's access hook: the generation route's declared access needs it.
    installRouteAccess(app, gw.services.auth, gw.services.inForce.config.server.bodyLimitBytes);
    registerGenerationRoute(app, gw.services, { ...messagesDialect, keepAlive: { intervalMs: INTERVAL_MS, text: PING } }, ['/v1/messages']);
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/messages`;
    headers = { 'x-api-key': gw.key };
  });
  after(async () => {
    await app.close();
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('a first byte slower than the interval: pings arrive first, then the whole answer', async () => {
    const upstream = gate();
    emu.enqueue({ fault: 'held', until: upstream.until, then: { text: 'finally here' } });
    // The response (its headers) arrives while the upstream still holds its answer: the
    // headers came with the first ping.
    const res = await postStream(
      url,
      { model: 'acme/alone', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      headers,
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(res.headers.get('x-generation-id'));
    const stream = streamReader(res);
    await stream.next((t) => pings(t) >= 2);
    upstream.open();
    const text = await stream.rest();
    const names = eventNames(text);
    const firstAnswer = names.indexOf('message_start');
    assert.ok(firstAnswer >= 2, `at least two pings before the answer: ${names.join(', ')}`);
    assert.deepEqual(new Set(names.slice(0, firstAnswer)), new Set(['ping']));
    assert.ok(text.startsWith(PING));
    assert.deepEqual(names.slice(firstAnswer), [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  test('pings do not commit the stream: a failure after them still fails over to the next endpoint', async () => {
    const upstream = gate();
    emu.enqueue({ fault: 'held', until: upstream.until, then: { status: 500, text: 'broken' } }, { text: 'from the second' });
    const res = await postStream(
      url,
      {
        model: 'acme/slow',
        max_tokens: 32,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
        provider: { order: ['first', 'second'] },
      },
      headers,
    );
    assert.equal(res.status, 200);
    const stream = streamReader(res);
    await stream.next((t) => pings(t) >= 1);
    upstream.open();
    const text = await stream.rest();
    assert.deepEqual(
      emu.requests.map((r) => r.body.model),
      ['slow-a', 'slow-b'],
    );
    const names = eventNames(text);
    assert.equal(names[0], 'ping');
    assert.equal(names.includes('error'), false, text);
    assert.equal(answerText(text), 'from the second');
    assert.equal(names.at(-1), 'message_stop');
  });

  test('when every attempt fails after pings, the error is an error event in the open stream', async () => {
    // The plan's only endpoint: tried, then retried twice, failing each time.
    const upstream = gate();
    for (let i = 0; i < 3; i++) emu.enqueue({ fault: 'held', until: upstream.until, then: { status: 500, text: 'broken' } });
    const res = await postStream(
      url,
      { model: 'acme/alone', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      headers,
    );
    assert.equal(res.status, 200);
    const stream = streamReader(res);
    await stream.next((t) => pings(t) >= 1);
    upstream.open();
    const text = await stream.rest();
    const names = eventNames(text);
    assert.equal(names[0], 'ping');
    assert.equal(names.at(-1), 'error');
    assert.equal(names.includes('message_start'), false);
    assert.equal(emu.requests.length, 3);
    const error = JSON.parse(text.trimEnd().split('\n\n').at(-1)!.split('\n')[1]!.slice(6));
    assert.equal(error.type, 'error');
    assert.equal(error.error.type, 'provider_error');
  });

  test('a fast upstream gets no ping at the real interval, and a fast failure is still a plain HTTP error', async () => {
    // The gateway's own /v1/messages route, with its 10 s interval.
    const messages = `${gw.baseUrl}/messages`;
    emu.enqueue({ text: 'quick' });
    const ok = await postJson(
      messages,
      { model: 'acme/alone', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      headers,
    );
    assert.equal(ok.status, 200);
    assert.equal(eventNames(ok.text).includes('ping'), false);
    assert.equal(answerText(ok.text), 'quick');
    // A failure the gateway does not retry (the provider refusing our credentials).
    emu.enqueue({ fault: 'status', status: 403 });
    const failed = await postJson(
      messages,
      { model: 'acme/alone', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      headers,
    );
    assert.equal(failed.status, 502);
    assert.equal(failed.json.type, 'error');
  });

  test('the chat dialect has no keep-alive: a slow first byte sends nothing early', async () => {
    // Both requests wait on one held upstream; the messages stream's pings show that the
    // keep-alive interval passed twice before the upstream answers either.
    const upstream = gate();
    emu.enqueue(
      { fault: 'held', until: upstream.until, then: { text: 'late' } },
      { fault: 'held', until: upstream.until, then: { text: 'late too' } },
    );
    const chat = postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/alone', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    const clock = await postStream(
      url,
      { model: 'acme/alone', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      headers,
    );
    const ticks = streamReader(clock);
    await ticks.next((t) => pings(t) >= 2 && emu.requests.length === 2);
    upstream.open();
    await ticks.rest();
    const res = await chat;
    assert.ok(res.text.startsWith('data: {'), res.text.slice(0, 80));
    assert.equal(res.text.includes('ping'), false);
  });
});
