import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorText, transportReason } from './upstream-error.ts';

const sys = (code: string, message: string, cause?: unknown) =>
  Object.assign(new Error(message, cause === undefined ? {} : { cause }), { code });

test("a transport error's reason comes from its code (or its causes'), never from its text", () => {
  assert.equal(transportReason(sys('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:8443')), 'connection refused');
  assert.equal(transportReason(sys('ENOTFOUND', 'getaddrinfo ENOTFOUND llm.corp.internal')), 'DNS lookup failed');
  assert.equal(transportReason(sys('EAI_AGAIN', 'getaddrinfo EAI_AGAIN llm.corp.internal')), 'DNS lookup failed');
  assert.equal(transportReason(sys('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error (attempted address: 10.0.0.5:443)')), 'timed out');
  assert.equal(transportReason(sys('ECONNRESET', 'read ECONNRESET')), 'connection reset');
  assert.equal(transportReason(sys('UND_ERR_SOCKET', 'other side closed')), 'connection reset');
  assert.equal(transportReason(sys('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')), 'TLS error');
  assert.equal(
    transportReason(sys('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: Host: llm.corp")),
    'TLS error',
  );
  assert.equal(transportReason(sys('EHOSTUNREACH', 'connect EHOSTUNREACH 10.9.9.9:443')), 'host unreachable');
  assert.equal(
    transportReason(new TypeError('fetch failed', { cause: sys('ECONNREFUSED', 'connect ECONNREFUSED ::1:9') })),
    'connection refused',
  );
  assert.equal(
    transportReason(Object.assign(new AggregateError([sys('ECONNREFUSED', 'x'), sys('ECONNREFUSED', 'y')]), { code: undefined })),
    'connection refused',
  );
  assert.equal(transportReason(new Error('/etc/switchyard/sa.json: bad')), 'network error');
  assert.equal(transportReason(new Error('x'), 'failed'), 'failed');
});

test("the operator's text keeps the code, the message and the cause", () => {
  assert.equal(
    errorText(new TypeError('fetch failed', { cause: sys('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:8443') })),
    'fetch failed (ECONNREFUSED: connect ECONNREFUSED 10.0.0.5:8443)',
  );
});
