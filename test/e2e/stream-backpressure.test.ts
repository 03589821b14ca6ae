// A streamed answer to a client that does not read at first: once it reads, every event
// arrives, in order, with the usage. Issue 29's seventh round reads an upstream stream with
// the body's events (paused while the client's socket is full, resumed on its drain) instead
// of an async iterator; this holds the old promise across the pause and the resume.

import assert from 'node:assert/strict';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

const PIECES = 3000;
const piece = (i: number): string => `${String(i).padStart(5, '0')}:${'x'.repeat(1000)} `;

/** An OpenAI-format upstream streaming PIECES content chunks, honouring backpressure; `blocked` resolves when its writes first wait for the gateway. */
function streamingUpstream(): { server: Server; blocked: Promise<void> } {
  let onBlocked: () => void = () => {};
  const blocked = new Promise<void>((resolve) => (onBlocked = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-bp', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'mock-model' };
      const event = (o: object): string => `data: ${JSON.stringify({ ...base, ...o })}\n\n`;
      res.write(event({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
      write(res, 0);
      function write(out: ServerResponse, from: number): void {
        for (let i = from; i < PIECES; i++) {
          if (!out.write(event({ choices: [{ index: 0, delta: { content: piece(i) }, finish_reason: null }] }))) {
            onBlocked();
            out.once('drain', () => write(out, i + 1));
            return;
          }
        }
        out.write(event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        out.write(event({ choices: [], usage: { prompt_tokens: 5, completion_tokens: PIECES, total_tokens: PIECES + 5 } }));
        out.end('data: [DONE]\n\n');
      }
    });
  });
  return { server, blocked };
}

describe('a streamed answer to a client that stops reading', () => {
  let up: ReturnType<typeof streamingUpstream>;
  let gw: TestGateway;
  before(async () => {
    up = streamingUpstream();
    await new Promise<void>((r) => up.server.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(up.server.address() as AddressInfo).port}/v1`;
    gw = await startTestGateway({ yaml: emulatorConfig(baseUrl), env: { LOCAL_KEY: 'k' }, credits: '10' });
  });
  after(async () => {
    await gw.close();
    await new Promise<void>((r) => up.server.close(() => r()));
  });

  test('delivers every event in order once the client reads', { timeout: 60_000 }, async () => {
    const body = JSON.stringify({ model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'hello' }] });
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${gw.origin}/v1/chat/completions`,
        { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' } },
        (res) => {
          assert.equal(res.statusCode, 200);
          // Not read until the upstream's writes wait on the gateway (~3 MB in flight behind a client that reads nothing).
          void up.blocked.then(() => {
            let out = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (out += d));
            res.on('end', () => resolve(out));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    let content = '';
    let usage: { completion_tokens: number } | null = null;
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: {')) continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[]; usage?: { completion_tokens: number } };
      content += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(content, Array.from({ length: PIECES }, (_, i) => piece(i)).join(''));
    assert.equal(usage?.completion_tokens, PIECES);
  });
});
