import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Config mistakes through the real CLI: `config check` validates without a database or a
// port and prints the catalog; a mistake is an error naming the file, the field, what is
// wrong and how to fix it, and `serve` refuses to start on it.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

const NO_CREDENTIALS = Object.fromEntries(
  [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'MISTRAL_API_KEY',
    'XAI_API_KEY',
    'GROQ_API_KEY',
    'DEEPSEEK_API_KEY',
    'TOGETHER_API_KEY',
    'FIREWORKS_API_KEY',
    'OPENROUTER_API_KEY',
    'AZURE_OPENAI_API_KEY',
    'OLLAMA_API_KEY',
    'VLLM_API_KEY',
    'UPSTREAM_URL',
    'LOCAL_KEY',
  ].map((k) => [k, '']),
);

const GOOD = `sim: false
providers:
  - id: local
    kind: openai
    base_url: \${UPSTREAM_URL}
    api_key: \${LOCAL_KEY}
models:
  - id: acme/mock-1
    context_length: 32000
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.0000015", completion: "0.000002" }
`;

describe('config check and config errors', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  function run(env: Record<string, string>, ...args: string[]) {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...NO_CREDENTIALS, SWITCHYARD_CONFIG: '', DATABASE_URL: '', SWITCHYARD_DATA_DIR: join(dir, 'data'), ...env },
      encoding: 'utf8',
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  test('config check prints providers (enabled and why not), models, endpoints and prices per million; no database is made', () => {
    const file = write('good.yaml', GOOD);
    const r = run({ UPSTREAM_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test-secret' }, 'config', 'check', '--config', file);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`config ok: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(r.out, /^ {2}local +openai +enabled +defined in the config$/m);
    assert.match(r.out, /^ {2}openai +openai +enabled +credential from OPENAI_API_KEY$/m);
    assert.match(r.out, /^ {2}anthropic +anthropic +disabled +no credential: set ANTHROPIC_API_KEY$/m);
    assert.match(r.out, /^ {2}sim +sim +disabled +sim: false$/m);
    assert.match(r.out, /^ {2}acme\/mock-1 +local\/mock-model +32000 +1\.5 +2$/m, 'USD per million tokens');
    assert.match(r.out, /^ {2}openai\/gpt-4\.1 +openai\/gpt-4\.1 +\d+ +2 +8$/m);
    assert.doesNotMatch(r.out, /sk-test-secret/);
    assert.equal(existsSync(join(dir, 'data')), false, 'no database, not even its folder');

    const json = run({ UPSTREAM_URL: 'http://127.0.0.1:9/v1' }, 'config', 'check', '--config', file, '--json');
    assert.equal(json.code, 0, json.err);
    const doc = JSON.parse(json.out);
    assert.equal(doc.ok, true);
    assert.deepEqual(
      doc.models.map((m: any) => m.id),
      ['acme/mock-1'],
    );
    // The API's model record (GET /v1/models) and endpoint record, and what only the operator sees.
    assert.equal(doc.models[0].object, 'model');
    assert.equal(doc.models[0].owned_by, 'acme');
    assert.deepEqual(doc.models[0].pricing, { prompt: '0.0000015', completion: '0.000002' });
    const endpoint = doc.models[0].endpoints[0];
    assert.deepEqual(
      [endpoint.endpoint_id, endpoint.tag, endpoint.upstream_model, endpoint.pricing],
      ['local/mock-model', 'local', 'mock-model', { prompt: '0.0000015', completion: '0.000002' }],
    );
    assert.deepEqual(
      doc.providers.find((p: any) => p.id === 'openai'),
      { id: 'openai', kind: 'openai', enabled: false, why: 'no credential: set OPENAI_API_KEY' },
    );
  });

  test('a required field from an unset variable names the variable, the file and the field', () => {
    const file = write('unset.yaml', GOOD);
    const r = run({}, 'config', 'check', '--config', file);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`config error in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at providers\\[0\\]\\.base_url: `));
    assert.match(r.err, /UPSTREAM_URL is not set/);
    assert.match(r.err, /\$\{UPSTREAM_URL:-value\}/, 'says how to give a default');
    assert.doesNotMatch(r.err, /at .*\.ts:\d+/);
  });

  test('a misspelt field gets a "did you mean"', () => {
    const file = write('typo.yaml', GOOD.replace('base_url:', 'base_ulr:'));
    const r = run({ UPSTREAM_URL: 'http://127.0.0.1:9/v1' }, 'config', 'check', '--config', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /at providers\[0\]\.base_ulr: unknown field "base_ulr"\. Did you mean "base_url"\?/);
    assert.match(r.err, /typo\.yaml/);
  });

  test('an endpoint naming an unknown provider is an error with the nearest id, and serve will not start on it', async () => {
    const file = write('provider.yaml', GOOD.replace('- provider: local', '- provider: opnai'));
    const env = { UPSTREAM_URL: 'http://127.0.0.1:9/v1' };
    const r = run(env, 'config', 'check', '--config', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /at models\[0\]\.endpoints\[0\]\.provider: unknown provider "opnai"\. Did you mean "openai"\?/);

    const serveData = mkdtempSync(join(dir, 'serve-data-'));
    const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], {
      env: { ...process.env, ...NO_CREDENTIALS, ...env, SWITCHYARD_CONFIG: '', DATABASE_URL: '', SWITCHYARD_DATA_DIR: serveData },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    assert.equal(code, 1, err);
    assert.match(err, /unknown provider "opnai"\. Did you mean "openai"\?/);
    assert.doesNotMatch(err, /listening on/);
    assert.equal(existsSync(join(serveData, 'switchyard.db')), false, 'a config mistake stops the start before the database is created');
  });

  test('a provider entry with a misspelt built-in id gets a "did you mean"', () => {
    const file = write('builtin-typo.yaml', 'providers:\n  - id: opnai\n    api_key: sk-x\n');
    const r = run({}, 'config', 'check', '--config', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /at providers\[0\]\.id: unknown provider "opnai"\. Did you mean "openai"\?/);
  });

  test('a missing config file says so', () => {
    const r = run({}, 'config', 'check', '--config', join(dir, 'nope.yaml'));
    assert.equal(r.code, 1);
    assert.match(r.err, /cannot read .*nope\.yaml: no such file/);
  });
});
