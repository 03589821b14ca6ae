import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { openSocket, untilClosed } from '../support/raw-http.ts';

// The server's own timeouts, set short in the config so that each test waits for the
// server to close the connection (the 'close' event), never for a fixed time. A test
// on a server without them would wait forever: the test timeout is only its failure.
// The sim's pace is slower than the idle timeout, so that an answer's silences are
// longer than it: the answers must still arrive whole.

const SERVER = 'server: { request_timeout_ms: 600, headers_timeout_ms: 400, idle_timeout_ms: 300, keep_alive_timeout_ms: 300 }';
const YAML = `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 400, first_chunk_delay_ms: 700 }
${SERVER}
`;
const FAILS_BY = { timeout: 30_000 };

function requestHead(gw: TestGateway, contentLength: number): string {
  return [
    'POST /v1/chat/completions HTTP/1.1',
    `Host: 127.0.0.1`,
    `Authorization: Bearer ${gw.key}`,
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
    '',
    '',
  ].join('\r\n');
}

describe('server timeouts close connections that hold the server, never an answer', () => {
  let gw: TestGateway;
  const sockets: Socket[] = [];
  before(async () => {
    gw = await startTestGateway({ yaml: YAML });
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await gw.close();
  });

  async function socket(): Promise<Socket> {
    const s = await openSocket(gw.origin);
    sockets.push(s);
    return s;
  }

  test('a body trickled a byte at a time is cut off at the request timeout (408)', FAILS_BY, async () => {
    const s = await socket();
    const closed = untilClosed(s);
    s.write(requestHead(gw, 1_000_000));
    // Keeps sending, so the connection is never idle: only the request timeout can end it.
    const trickle = setInterval(() => {
      if (!s.destroyed) s.write(' ');
    }, 20);
    const text = await closed;
    clearInterval(trickle);
    assert.match(text, /^HTTP\/1\.1 408/);
  });

  test('a connection idle after its headers is closed', FAILS_BY, async () => {
    const s = await socket();
    const closed = untilClosed(s);
    s.write(requestHead(gw, 100));
    const text = await closed;
    assert.doesNotMatch(text, /^HTTP\/1\.1 200/);
  });

  test('a connection that never finishes its headers is closed', FAILS_BY, async () => {
    const s = await socket();
    const closed = untilClosed(s);
    s.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await closed;
  });

  test('an idle keep-alive connection is closed after its answer', FAILS_BY, async () => {
    const s = await socket();
    const closed = untilClosed(s);
    s.write('GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ' + gw.key + '\r\n\r\n');
    const text = await closed;
    assert.match(text, /^HTTP\/1\.1 200/);
  });

  test('a stream with silences longer than the idle and request timeouts arrives whole', FAILS_BY, async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'switchyard/sim-fast',
        stream: true,
        max_tokens: 6,
        messages: [{ role: 'user', content: 'Tell me a story about a lighthouse.' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200);
    const events = sseData(res.text);
    assert.equal(events.at(-1), '[DONE]');
    const deltas = events.filter((e: any) => e !== '[DONE]' && e.choices?.[0]?.delta?.content);
    assert.ok(deltas.length >= 2, `several chunks, each after a silence (${deltas.length})`);
    assert.ok(
      events.some((e: any) => e !== '[DONE]' && e.choices?.[0]?.finish_reason !== null && e.choices?.[0]?.finish_reason !== undefined),
    );
  });

  test('a non-streamed answer slower than the idle timeout arrives', FAILS_BY, async () => {
    const res = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'switchyard/sim-fast',
        max_tokens: 4,
        messages: [{ role: 'user', content: 'hi' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.type, 'message');
  });
});
