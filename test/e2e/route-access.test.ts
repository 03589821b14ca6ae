import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { openSocket } from '../support/raw-http.ts';
import { describeRoutes } from '../../src/server/route-access.ts';

// Every registered route refuses a request that announces a 30 MB body and sends none of
// it, from the headers alone: a 4xx (401 or 403 for a credential, 404, 413 for a route
// that takes no or only a small body) and the connection closed, at once. Nothing can be
// read yet, so a route that would wait for the body before refusing fails here.

const ANNOUNCED = 30_000_000;
const REFUSALS = new Set([401, 403, 404, 413]);

interface Answer {
  status: number;
  /** Milliseconds from sending the headers to the connection's close. */
  closedAfterMs: number;
}

/** Sends `method path` with `Content-Length: 30000000` and no body; resolves when the server closes. */
async function announceHugeBody(origin: string, method: string, path: string, extra = ''): Promise<Answer> {
  const socket = await openSocket(origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => {});
    // A gateway that waits for the body never closes: give up after 5 s, with what it answered.
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m === null) reject(new Error(`${method} ${path}: closed without an answer`));
      else resolve({ status: Number(m[1]), closedAfterMs: performance.now() - started });
    });
    socket.write(
      `${method} ${path} HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${ANNOUNCED}\r\n\r\n`,
    );
  });
}

function concretePath(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'x').replace(/\*$/, 'x');
}

describe('every route refuses before reading the body', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}metrics:\n  token: metrics-secret-token\n` });
  });
  after(() => gw.close());

  test('every registered route declares its access', () => {
    const routes = describeRoutes(gw.app);
    assert.ok(routes.length > 60, `${routes.length} routes`);
    for (const r of routes) assert.ok(r.access !== undefined, `${r.method} ${r.url}`);
  });

  test('each route, with no credential, answers a 4xx and closes the connection within 100 ms', async () => {
    const failures: string[] = [];
    for (const r of describeRoutes(gw.app)) {
      const path = concretePath(r.url);
      // Timing is judged on the best of three tries (a scheduler hiccup on a loaded machine is
      // not the route's doing); the status on every try.
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3 && best > 100; i++) {
        const answer = await announceHugeBody(gw.origin, r.method, path);
        if (!REFUSALS.has(answer.status)) failures.push(`${r.method} ${r.url} (${r.access?.auth}): ${answer.status}`);
        best = Math.min(best, answer.closedAfterMs);
      }
      if (best > 100) failures.push(`${r.method} ${r.url}: closed after ${best.toFixed(0)} ms`);
    }
    assert.deepEqual(failures, []);
  });

  test('with a valid API key, routes of other kinds still refuse before the body (403 or 413)', async () => {
    const failures: string[] = [];
    for (const r of describeRoutes(gw.app)) {
      if (r.access?.auth === 'model-key' || r.access?.auth === 'key') continue;
      const answer = await announceHugeBody(gw.origin, r.method, concretePath(r.url), `Authorization: Bearer ${gw.key}\r\n`);
      if (!REFUSALS.has(answer.status)) failures.push(`${r.method} ${r.url} (${r.access?.auth}): ${answer.status}`);
    }
    assert.deepEqual(failures, []);
  });

  test('the dashboard sign-in takes at most a small body: 413 from the headers, before the limiter is spent', async () => {
    const answer = await announceHugeBody(gw.origin, 'POST', '/api/v1/dashboard/session');
    assert.equal(answer.status, 413);
  });

  test('the sign-in limiter refuses from the headers: past its attempts, a sign-in is 429 before its body is sent', async () => {
    // Each attempt from this address counts, whatever its answer (here: no body, a 400 or 401).
    let status = 0;
    for (let i = 0; i < 50 && status !== 429; i++) {
      const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"key":"sk-sy-v1-wrong"}',
      });
      status = res.status;
    }
    assert.equal(status, 429);
    const answer = await announceHugeBody(gw.origin, 'POST', '/api/v1/dashboard/session');
    assert.equal(answer.status, 413, 'a body over 4 KiB is refused first');
    const socket = await openSocket(gw.origin);
    const text = await new Promise<string>((resolve) => {
      let t = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        t += d;
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve(t));
      socket.write(`POST /api/v1/dashboard/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n`);
    });
    assert.match(text, /^HTTP\/1\.1 429/);
    assert.match(text, /retry-after: \d+/i);
  });

  test('a GET carrying a body is answered and its connection closed rather than drained', async () => {
    const answer = await announceHugeBody(gw.origin, 'GET', '/health');
    assert.equal(answer.status, 413);
  });
});
