import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../errors/gateway-error.ts';
import { SERVER_DEFAULTS } from '../config/parse-server.ts';
import { normalizeError } from './normalize-error.ts';
import { SharedStateUnavailable } from '../shared/shared-state-unavailable.ts';

/** Captures what is written to stderr (the operator's log) during fn. */
function stderrOf(t: TestContext, fn: () => void): string {
  let text = '';
  const write = t.mock.method(process.stderr, 'write', (chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  try {
    fn();
  } finally {
    write.mock.restore();
  }
  return text;
}

test('a GatewayError passes through unchanged', () => {
  const err = new GatewayError('rate_limited', 'slow down', { headers: { 'retry-after': '3' } });
  assert.equal(normalizeError(err), err);
});

test("Fastify's body errors become the catalogue's request errors", () => {
  const tooLarge = normalizeError(
    Object.assign(new Error('too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }),
    SERVER_DEFAULTS.bodyLimitBytes,
  );
  assert.equal(tooLarge.code, 'request_too_large');
  assert.equal(tooLarge.status, 413);
  assert.match(tooLarge.message, new RegExp(String(SERVER_DEFAULTS.bodyLimitBytes)));
  for (const code of ['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']) {
    const e = normalizeError(Object.assign(new Error('bad'), { code, statusCode: 400 }));
    assert.equal(e.code, 'invalid_json');
    assert.equal(e.status, 400);
  }
});

test('another client error (4xx) keeps its message as an invalid_parameter', () => {
  const e = normalizeError(Object.assign(new Error('querystring/offset must be integer'), { statusCode: 400 }));
  assert.equal(e.code, 'invalid_parameter');
  assert.equal(e.message, 'querystring/offset must be integer');
});

test('anything else is a 500 that tells the client nothing and the operator everything', (t) => {
  let e: GatewayError | undefined;
  const log = stderrOf(t, () => {
    e = normalizeError(new Error('secret detail: sk-sy-v1-should-not-leak'));
  });
  assert.equal(e!.code, 'internal_error');
  assert.equal(e!.status, 500);
  assert.equal(e!.message, 'Internal server error');
  assert.doesNotMatch(JSON.stringify(e!.toRecord()), /secret detail/);
  assert.match(log, /internal error: Error: secret detail/);
  for (const odd of [null, undefined, 'a string', 42, Object.assign(new Error('server side'), { statusCode: 503 })]) {
    let n: GatewayError | undefined;
    stderrOf(t, () => {
      n = normalizeError(odd);
    });
    assert.equal(n!.code, 'internal_error', String(odd));
  }
});

test('a write the database refused (read-only, disk full) is a retryable 503, not a 500', (t) => {
  let e: GatewayError | undefined;
  const log = stderrOf(t, () => {
    e = normalizeError(Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 }));
  });
  assert.equal(e!.code, 'storage_unavailable');
  assert.equal(e!.status, 503);
  assert.equal(e!.retryable, true);
  assert.match(log, /database write failed: database or disk is full/);
});

test('a fleet whose shared state cannot answer: 503 shared_state_unavailable naming the store, with Retry-After, nothing of the cause', () => {
  const cause = new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2');
  for (const store of ['redis', 'postgres'] as const) {
    const e = normalizeError(new SharedStateUnavailable(store, cause.message, { cause }));
    assert.equal(e.code, 'shared_state_unavailable');
    assert.equal(e.status, 503);
    assert.equal(e.headers?.['retry-after'], '1');
    assert.deepEqual(e.metadata, { store });
    assert.doesNotMatch(e.message, /hunter2|10\.0\.0\.5/);
  }
});
