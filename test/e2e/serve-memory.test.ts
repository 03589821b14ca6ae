import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listening, run, serve, serveEnv, starterKey, stop, tempDir } from '../support/serve-process.ts';

// Memory (docs/benchmarks.md): a gateway serving without tracing, on a stdout that is not
// a terminal, loads neither the OpenTelemetry SDK nor pino-pretty, and no BPE tokenizer
// until a request needs one (~110 MB of RSS for both encodings); nor what only a feature in
// use needs (the MCP SDK, nodemailer, openid-client: docs/operations.md, "Memory and GC"). `switchyard serve` as
// operators start it, its loaded packages recorded by a preloaded resolve hook.

const HOOK = fileURLToPath(new URL('../support/loaded-packages-hook.mjs', import.meta.url));
const LAZY = [
  'gpt-tokenizer',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  'pino-pretty',
  'pg',
  'redis',
  // Bedrock's and Vertex's credentials and framing, for a gateway with neither provider.
  '@aws-sdk/credential-providers',
  '@smithy/signature-v4',
  '@smithy/eventstream-codec',
  'google-auth-library',
  // pdf.js, on its own thread, for the first PDF whose text is needed (docs/pdf.md).
  'unpdf',
  // The MCP SDK (~10 MB of heap: the first /mcp request or MCP tool call loads it), the
  // sign-in mailer (~5 MB: the first mailed link) and the SSO client (the first SSO sign-in).
  '@modelcontextprotocol/sdk',
  'zod',
  'nodemailer',
  'openid-client',
];

test('an idle `switchyard serve` that answered a request has loaded no tokenizer, no tracing SDK, no pretty printer, no Postgres or Redis client, no AWS or Google credentials library, no MCP SDK, mailer or OpenID client', async () => {
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
  assert.deepEqual(
    LAZY.filter((p) => loaded.includes(p)),
    [],
  );
});

// npm start (and the image) cache the sources with their types stripped and preload the hook
// that serves them: no thread of the gateway loads Node's type stripper (amaro, ~15-20 MB of
// WebAssembly per thread). The gateway is started with the start script's own Node flags.
test("`switchyard serve` with npm start's flags loads no type stripper in any thread, and without the cache it still serves", async () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const nodeFlags = /exec node ((?:--\S+(?: \.\/\S+\.mjs)? )+)bin\/switchyard\.mjs serve/.exec(pkg.scripts.start)?.[1]?.trim().split(' ');
  assert.ok(nodeFlags !== undefined && nodeFlags.includes('./bin/type-stripped-hook.mjs'), pkg.scripts.start);
  const warm = spawnSync(process.execPath, [join(root, 'bin', 'type-stripped-sources.mjs')], { encoding: 'utf8' });
  assert.equal(warm.status, 0, warm.stderr);
  assert.equal(warm.stderr, '', 'caching the sources says nothing (no experimental warning)');

  const threads = async (cached: boolean): Promise<string[]> => {
    const env = serveEnv({
      SWITCHYARD_DATA_DIR: tempDir('switchyard-stripped'),
      PORT: '0',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOOK}`.trim(),
    });
    // Without the cache: a hook whose cache directory is empty must leave the loading to Node.
    if (!cached) env.SWITCHYARD_TYPE_STRIPPED_CACHE = tempDir('switchyard-stripped-empty');
    const s = run(process.execPath, [...nodeFlags, join(root, 'bin', 'switchyard.mjs'), 'serve'], { env, cwd: root });
    const origin = await listening(s);
    const key = await starterKey(s);
    // A paid-path request goes through the SQLite writer thread (its settlement).
    const res = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
    const exit = await stop(s);
    assert.equal(exit.code, 0, s.stderr);
    return [...s.stderr.matchAll(/type stripper in thread (\d+): (true|false)/g)].map((m) => `${m[1]}:${m[2]}`);
  };
  const withCache = await threads(true);
  assert.ok(withCache.length >= 2, `the main thread and the writer thread reported: ${withCache.join(', ')}`);
  assert.deepEqual(
    withCache.filter((t) => t.endsWith(':true')),
    [],
    `no thread loaded the type stripper: ${withCache.join(', ')}`,
  );
  const without = await threads(false);
  assert.ok(
    without.some((t) => t.endsWith(':true')),
    `without the cache Node strips the sources itself: ${without.join(', ')}`,
  );
});
