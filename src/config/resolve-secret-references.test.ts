import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';
import { resolveSecret, resolveSecretFields } from './resolve-secret-references.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-secret-unit-'));

test('env: and file: resolve; anything else is the secret itself', () => {
  writeFileSync(join(dir, 'k'), 'from-file\r\n');
  assert.equal(resolveSecret('env:A_KEY', 'f', { A_KEY: 'from-env' }), 'from-env');
  assert.equal(resolveSecret(`file:${join(dir, 'k')}`, 'f', {}), 'from-file');
  assert.equal(resolveSecret('sk-literal', 'f', {}), 'sk-literal');
});

test('errors name the field and the reference, never a value', () => {
  assert.throws(
    () => resolveSecret('env:NOPE', 'providers[0].api_key', { OTHER: 'x' }),
    (err: unknown) => err instanceof ConfigError && err.path === 'providers[0].api_key' && /NOPE/.test(err.detail),
  );
  assert.throws(() => resolveSecret('env:bad-name', 'f', {}), /not a valid environment reference/);
  assert.throws(() => resolveSecret(`file:${join(dir, 'missing')}`, 'f', {}), /missing \(from file:.*\) does not exist/);
  assert.throws(() => resolveSecret(`file:${dir}`, 'f', {}), /is a directory/);
});

test('only the secret fields are resolved, on a copy, with list and map wildcards', () => {
  const tree = {
    providers: [
      { id: 'p', api_key: 'env:K1', headers: { 'x-team': 'env:K2' }, name: 'env:NOT_A_SECRET', api_keys: [{ key: 'env:K3', label: 'a' }] },
    ],
    models: [{ id: 'm', description: 'file:/not/a/secret' }],
  };
  const out = resolveSecretFields(tree, { K1: 'one', K2: 'two', K3: 'three' }) as any;
  assert.deepEqual(out.providers[0], {
    id: 'p',
    api_key: 'one',
    headers: { 'x-team': 'two' },
    name: 'env:NOT_A_SECRET',
    api_keys: [{ key: 'three', label: 'a' }],
  });
  assert.equal(out.models[0].description, 'file:/not/a/secret');
  assert.equal(tree.providers[0]!.api_key, 'env:K1');
});
