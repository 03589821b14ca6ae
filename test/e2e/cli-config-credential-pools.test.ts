import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `api_keys:` through the real CLI (`config check`): a pool loads; each mistake is an error
// naming the field, and never quotes a key.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
const SECRET = 'sk-never-quote-me-7Hq2';

const MODELS = `models:
  - id: acme/pooled
    context_length: 32000
    endpoints:
      - provider: pooled
        model: m
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

describe('config check: credential pools', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-pool-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  function check(provider: string, env: Record<string, string> = {}) {
    const path = join(dir, `c${++n}.yaml`);
    writeFileSync(path, `sim: false\nproviders:\n  - id: pooled\n    base_url: http://127.0.0.1:9/v1\n${provider}${MODELS}`);
    const r = spawnSync(process.execPath, [BIN, 'config', 'check', '--config', path], {
      env: { ...process.env, SWITCHYARD_CONFIG: '', DATABASE_URL: '', SWITCHYARD_DATA_DIR: join(dir, 'data'), ...env },
      encoding: 'utf8',
    });
    const out = { code: r.status, out: r.stdout, err: r.stderr };
    assert.equal(`${out.out}${out.err}`.includes(SECRET), false, 'a key was quoted');
    return out;
  }

  test('a pool with env references, weights, budgets and model globs loads, the provider enabled', () => {
    const r = check(
      `    kind: openai\n    api_keys:\n      - { key: "\${POOL_A}", label: a, weight: 2, rpm: 100, tpm: 5000, models: ["gpt-*"] }\n      - { key: "${SECRET}", label: b }\n`,
      { POOL_A: 'sk-from-env-123456' },
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ {2}pooled +openai +enabled/m);
  });

  const cases: Array<[string, string, RegExp]> = [
    [
      'an unknown field',
      `    kind: openai\n    api_keys:\n      - { key: "${SECRET}", label: a, wieght: 2 }\n`,
      /providers\[0\]\.api_keys\[0\]\.wieght/,
    ],
    ['no label', `    kind: openai\n    api_keys:\n      - { key: "${SECRET}" }\n`, /providers\[0\]\.api_keys\[0\]\.label/],
    [
      'a duplicate label',
      `    kind: openai\n    api_keys:\n      - { key: "${SECRET}", label: a }\n      - { key: "${SECRET}x", label: a }\n`,
      /api_keys\[1\]\.label: duplicate credential label "a"/,
    ],
    [
      'an empty key (an unset variable)',
      `    kind: openai\n    api_keys:\n      - { key: "\${UNSET_POOL_KEY}", label: a }\n`,
      /api_keys\[0\]\.key/,
    ],
    [
      'a weight of 0',
      `    kind: openai\n    api_keys:\n      - { key: "${SECRET}", label: a, weight: 0 }\n`,
      /api_keys\[0\]\.weight: expected a number greater than 0/,
    ],
    ['an empty list', `    kind: openai\n    api_keys: []\n`, /providers\[0\]\.api_keys: expected at least one credential/],
    [
      'the label "default" beside api_key',
      `    kind: openai\n    api_key: "${SECRET}"\n    api_keys:\n      - { key: "${SECRET}x", label: default }\n`,
      /api_keys: the label "default" names the provider's api_key/,
    ],
    [
      'a kind without pools',
      `    kind: sim\n    api_keys:\n      - { key: "${SECRET}", label: a }\n`,
      /api_keys: credential pools are not supported for kind "sim"/,
    ],
  ];
  for (const [what, provider, message] of cases) {
    test(`${what} is refused, naming the field`, () => {
      const r = check(provider);
      assert.equal(r.code, 1, r.out);
      assert.match(r.err, message);
    });
  }
});
