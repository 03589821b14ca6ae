import assert from 'node:assert/strict';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';

// Test support for the dialect decoders: a validation failure is a 400
// invalid_request_error with the expected code, whose `param` and message name the field.

export function assertRequestError(fn: () => unknown, code: ErrorCode, param?: string): GatewayError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof GatewayError, `expected a GatewayError, got ${String(caught)}`);
  assert.equal(caught.status, 400);
  assert.equal(caught.type, 'invalid_request_error');
  assert.equal(caught.code, code, caught.message);
  if (param !== undefined) {
    assert.equal(caught.param, param);
    assert.ok(caught.message.includes(`'${param}'`), `message should name '${param}': ${caught.message}`);
  }
  return caught;
}
