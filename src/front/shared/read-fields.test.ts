import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readBoolean, readEnum, readNumber, readObject, readString, readStringArray, readStringMap, requireString } from './read-fields.ts';
import { assertRequestError } from './assert-gateway-error.ts';

describe('read-fields', () => {
  it('absent and null read as undefined', () => {
    const obj = { a: null };
    assert.equal(readNumber(obj, 'a', {}), undefined);
    assert.equal(readNumber(obj, 'b', { min: 1 }), undefined);
    assert.equal(readString(obj, 'a'), undefined);
    assert.equal(readBoolean(obj, 'a'), undefined);
    assert.equal(readObject(obj, 'a'), undefined);
    assert.equal(readStringArray(obj, 'a'), undefined);
    assert.equal(readEnum(obj, 'a', new Set(['x'])), undefined);
    assert.equal(readStringMap(obj, 'a'), undefined);
  });

  it('readNumber checks type, integer and inclusive or exclusive bounds', () => {
    assert.equal(readNumber({ v: 2 }, 'v', { min: 0, max: 2 }), 2);
    assert.equal(readNumber({ v: 0 }, 'v', { min: 0, max: 2 }), 0);
    assertRequestError(() => readNumber({ v: 0 }, 'v', { min: 0, max: 2, minExclusive: true }), 'invalid_parameter', 'v');
    assertRequestError(() => readNumber({ v: 3 }, 'v', { integer: true, max: 2 }), 'invalid_parameter', 'v');
    assertRequestError(() => readNumber({ v: 1.5 }, 'v', { integer: true }), 'invalid_parameter', 'v');
    const err = assertRequestError(() => readNumber({ v: '1' }, 'v', { min: 0, max: 1 }), 'invalid_parameter', 'v');
    assert.match(err.message, /expected a number from 0 to 1, got a string/);
  });

  it('nested fields are reported by their full path', () => {
    assertRequestError(() => readNumber({ p: -1 }, 'p', { min: 0 }, 'provider.max_price'), 'invalid_parameter', 'provider.max_price.p');
    assertRequestError(() => readStringArray({ o: ['a', 2] }, 'o', 'provider'), 'invalid_parameter', 'provider.o[1]');
    assertRequestError(() => readStringMap({ m: { k: 1 } }, 'm'), 'invalid_parameter', 'm.k');
    assertRequestError(() => readEnum({ s: 'x' }, 's', new Set(['a', 'b']), 'provider'), 'invalid_parameter', 'provider.s');
  });

  it('requireString distinguishes missing from wrong type', () => {
    assert.equal(requireString({ n: 'x' }, 'n'), 'x');
    assertRequestError(() => requireString({}, 'n', 'f'), 'missing_parameter', 'f.n');
    assertRequestError(() => requireString({ n: 1 }, 'n'), 'invalid_parameter', 'n');
  });

  it('readObject rejects arrays', () => {
    assertRequestError(() => readObject({ o: [] }, 'o'), 'invalid_parameter', 'o');
  });
});
