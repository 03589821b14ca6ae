import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { listening, serve, serveEnv, starterKey, stop, tempDir } from '../support/serve-process.ts';

// Memory (docs/benchmarks.md): a gateway serving without tracing, on a stdout that is not
// a terminal, loads neither the OpenTelemetry SDK nor pino-pretty, and no BPE tokenizer
// until a request needs one (~110 MB of RSS for both encodings). `switchyard serve` as
// operators start it, its loaded packages recorded by a preloaded resolve hook.

const HOOK = fileURLToPath(new URL('../support/loaded-packages-hook.mjs', import.meta.url));
const LAZY = ['gpt-tokenizer', '@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', 'pino-pretty', 'pg', 'redis'];

test('an idle `switchyard serve` that answered a request has loaded no tokenizer, no tracing SDK, no pretty printer, no Postgres or Redis client', async () => {
  const env = serveEnv({
    SWITCHYARD_DATA_DIR: tempDir('switchyard-memory'),
    PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOOK}`.trim(),
  });
  const s = serve(env);
  const origin = await listening(s);
  const key = await starterKey(s);
  const res = await fetch(`${origin}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  await stop(s);
  const line = /loaded packages: (\[.*\])/.exec(s.stderr);
  assert.ok(line !== null, s.stderr);
  const loaded = JSON.parse(line[1]!) as string[];
  assert.ok(loaded.includes('fastify'), `the hook saw the gateway's packages: ${loaded.join(', ')}`);
  assert.deepEqual(LAZY.filter((p) => loaded.includes(p)), []);
});
