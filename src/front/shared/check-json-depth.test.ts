import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../errors/gateway-error.ts';
import { checkJsonDepth } from './check-json-depth.ts';

/** `levels` arrays nested in one another, as parsed JSON. */
function nested(levels: number): unknown {
  return JSON.parse('['.repeat(levels) + ']'.repeat(levels));
}

describe('checkJsonDepth', () => {
  test('the body counts as level 1: a field may nest to the limit, not past it', () => {
    assert.doesNotThrow(() => checkJsonDepth({ a: nested(3) }, 4));
    assert.throws(
      () => checkJsonDepth({ a: nested(4) }, 4),
      (err: unknown) => {
        assert.ok(err instanceof GatewayError);
        assert.equal(err.code, 'invalid_parameter');
        assert.equal(err.param, 'a');
        assert.match(err.message, /more than 4 levels/);
        return true;
      },
    );
  });

  test('names the top-level field that is too deep, whatever comes before it', () => {
    assert.throws(
      () => checkJsonDepth({ fine: { x: [1, 2] }, tools: [{ p: nested(70) }] }),
      (err: GatewayError) => err.param === 'tools',
    );
  });

  test('a non-object body is checked as a whole; scalars pass', () => {
    assert.throws(
      () => checkJsonDepth(nested(65)),
      (err: GatewayError) => err.param === 'body',
    );
    assert.doesNotThrow(() => checkJsonDepth(nested(64)));
    assert.doesNotThrow(() => checkJsonDepth('text'));
    assert.doesNotThrow(() => checkJsonDepth(null));
  });

  test('depth 200,000 is refused without overflowing the stack', () => {
    assert.throws(
      () => checkJsonDepth({ tools: nested(200_000) }),
      (err: GatewayError) => err.param === 'tools',
    );
  });

  test('wide bodies are fine: only depth counts', () => {
    assert.doesNotThrow(() =>
      checkJsonDepth({ messages: Array.from({ length: 100_000 }, () => ({ role: 'user', content: [{ type: 'text' }] })) }),
    );
  });
});
