import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { resolveEnvReferences } from './resolve-env-references.ts';

describe('resolveEnvReferences', () => {
  const env = { A: 'alpha', EMPTY: '' };

  it('replaces every reference in a string, leaving other scalars alone', () => {
    assert.deepEqual(
      resolveEnvReferences({ s: '${A}-${A:-x}-${B:-beta}-${EMPTY:-e}-${B}|', n: 1, b: true, z: null, list: ['${A}'] }, env),
      { s: 'alpha-alpha-beta-e-|', n: 1, b: true, z: null, list: ['alpha'] },
    );
  });

  it('keeps defaults that hold colons and dashes, and allows an empty default', () => {
    assert.equal(resolveEnvReferences('${URL:-http://h:9/v1}', env), 'http://h:9/v1');
    assert.equal(resolveEnvReferences('${B:-}', env), '');
  });

  it('leaves text without references untouched, and unescapes $${...}', () => {
    assert.equal(resolveEnvReferences('price $5 {not a ref}', env), 'price $5 {not a ref}');
    assert.equal(resolveEnvReferences('$${A} ${A}', env), '${A} alpha');
  });

  it('does not resolve keys', () => {
    assert.deepEqual(resolveEnvReferences({ '${A}': 'v' }, env), { '${A}': 'v' });
  });

  it('names the field of a malformed reference', () => {
    assert.throws(
      () => resolveEnvReferences({ providers: [{ headers: { X: '${1BAD}' } }] }, env),
      (err: unknown) => err instanceof ConfigError && err.path === 'providers[0].headers.X',
    );
  });
});
