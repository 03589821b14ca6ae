import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, listening, serve, serveEnv, starterKey, stop, tempDir, type ServeRun } from '../support/serve-process.ts';
import { readSse, ssePayloads } from '../support/sse-reader.ts';
import { gate, startOpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';

// Config reload without a restart: SIGHUP, or `switchyard reload`, which finds the gateway
// through the database and says whether its config was accepted. A config that cannot
// serve is refused and the one in force stays; a request in flight finishes on the
// config it started with.

/** A priced model on the simulated provider; `more` adds providers, models and top-level keys. */
function BASE(chunkDelayMs: number, promptUsd: string, more: { providers?: string; models?: string; top?: string } = {}): string {
  return `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: ${chunkDelayMs} }
${more.providers ?? ''}models:
  - id: acme/paid-sim
    context_length: 32000
    endpoints:
      - provider: sim
        model: sim-fast
        pricing: { prompt: "${promptUsd}", completion: "0.000002" }
${more.models ?? ''}${more.top ?? ''}`;
}

const NEW_MODEL = `  - id: acme/added-later
    context_length: 8000
    endpoints:
      - provider: sim
        model: sim-pro
        pricing: { prompt: "0.000001", completion: "0.000001" }
`;

interface Gateway {
  dir: string;
  config: string;
  s: ServeRun;
  origin: string;
  key: string;
}

async function start(yaml: string): Promise<Gateway> {
  const dir = tempDir('switchyard-reload');
  const config = join(dir, 'switchyard.yaml');
  writeFileSync(config, yaml);
  const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config }), ['--port', '0']);
  const origin = await listening(s);
  return { dir, config, s, origin, key: await starterKey(s) };
}

/** `switchyard reload` as an operator runs it, beside the gateway (asynchronously: the test reads a stream meanwhile). */
function reloadCli(gw: Gateway, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, 'reload', ...args], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: gw.dir, SWITCHYARD_CONFIG: gw.config, DATABASE_URL: '' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

async function modelIds(origin: string): Promise<string[]> {
  const body = (await (await fetch(`${origin}/v1/models`)).json()) as { data: Array<{ id: string }> };
  return body.data.map((m) => m.id);
}

async function readyBody(origin: string): Promise<any> {
  return (await fetch(`${origin}/ready`)).json();
}

test('SIGHUP loads the config file again: a model added to it is served without a restart', { timeout: 60_000 }, async () => {
  const gw = await start(BASE(0, '0.000001'));
  try {
    assert.ok(!(await modelIds(gw.origin)).includes('acme/added-later'));
    writeFileSync(gw.config, BASE(0, '0.000001', { models: NEW_MODEL }));
    gw.s.child.kill('SIGHUP');
    await gw.s.waitFor(/config reloaded: generation 2/);
    assert.ok((await modelIds(gw.origin)).includes('acme/added-later'));
    const chat = await fetch(`${gw.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body: JSON.stringify({ model: 'acme/added-later', messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(chat.status, 200, await chat.text());
    assert.equal((await readyBody(gw.origin)).config.generation, 2);
  } finally {
    assert.equal((await stop(gw.s)).code, 0, gw.s.stderr);
  }
});

test(
  '`switchyard reload` reports a config the gateway refuses, with its error; the previous config keeps serving',
  { timeout: 60_000 },
  async () => {
    const gw = await start(BASE(0, '0.000001'));
    try {
      // Valid YAML the CLI reads, but a provider the catalog cannot build: only the gateway finds out.
      writeFileSync(
        gw.config,
        BASE(0, '0.000001', {
          providers: '  - id: nowhere-local\n    base_url: http://127.0.0.1:9/v1\n',
          models:
            '  - id: acme/broken\n    context_length: 8000\n    endpoints:\n      - provider: nowhere-local\n        pricing: { prompt: "1", completion: "1" }\n',
        }),
      );
      const r = await reloadCli(gw);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(
        r.err,
        /config reload refused by the gateway \(pid \d+\): config error in .*switchyard\.yaml at providers\[1\]\.kind: required for a provider that is not built in/,
      );
      assert.match(r.err, /generation 1 stays in force/);
      assert.match(gw.s.stderr, /config reload refused: .*kind.*; the previous config \(generation 1\) stays in force/);
      assert.deepEqual((await modelIds(gw.origin)).includes('acme/paid-sim'), true);
      const ready = await readyBody(gw.origin);
      assert.equal(ready.config.generation, 1);
      assert.equal(ready.config.last_reload.ok, false);

      // Fixed, the same command reports success.
      writeFileSync(gw.config, BASE(0, '0.000001', { models: NEW_MODEL }));
      const ok = await reloadCli(gw);
      assert.equal(ok.code, 0, ok.err);
      assert.match(ok.out, /config reloaded by the gateway \(pid \d+\): generation 2 in force/);
      assert.ok((await modelIds(gw.origin)).includes('acme/added-later'));
    } finally {
      await stop(gw.s);
    }
  },
);

test('a reload that changes a restart-only field (server.host) is refused, naming it, also in --json', { timeout: 60_000 }, async () => {
  const gw = await start(BASE(0, '0.000001'));
  try {
    writeFileSync(gw.config, BASE(0, '0.000001', { top: 'server: { host: 0.0.0.0 }\n' }));
    const r = await reloadCli(gw);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /server\.host changed \(127\.0\.0\.1 → 0\.0\.0\.0\); it takes a restart to apply/);
    // --json: the same outcome for scripts.
    const json = await reloadCli(gw, '--json');
    assert.equal(json.code, 1);
    const body = JSON.parse(json.out);
    assert.equal(body.ok, false);
    assert.equal(body.generation, 1);
    assert.match(body.error, /server\.host changed/);
  } finally {
    await stop(gw.s);
  }
});

test(
  'a stream begun before a reload finishes on the price it started with; the next request pays the new one',
  { timeout: 60_000 },
  async () => {
    // The upstream holds the stream after its first chunks until the reload is done: the
    // stream is still running when the new price comes in force, however slow the machine.
    const emu = await startOpenAIChatEmulator();
    const priced = (promptUsd: string): string => `sim: false
providers:
  - { id: local, kind: openai, base_url: "${emu.baseUrl}" }
models:
  - id: acme/paid-emu
    context_length: 32000
    endpoints:
      - provider: local
        model: mock-1
        pricing: { prompt: "${promptUsd}", completion: "0.000002" }
`;
    const gw = await start(priced('0.000001'));
    try {
      const held = gate();
      emu.enqueue({ fault: 'held', until: held.until, afterChunks: 2, then: { text: 'once upon a time there was a gateway', chunks: 8 } });
      const request = (stream: boolean) =>
        fetch(`${gw.origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gw.key}` },
          body: JSON.stringify({
            model: 'acme/paid-emu',
            stream,
            max_tokens: 64,
            messages: [{ role: 'user', content: 'Tell me a story.' }],
          }),
        });
      const res = await request(true);
      const stream = readSse(res.body!);
      await stream.waitFor(/"content":"[^"]+"/);

      // Ten times the prompt price, reloaded while the stream is held mid-answer.
      writeFileSync(gw.config, priced('0.00001'));
      const r = await reloadCli(gw);
      assert.equal(r.code, 0, r.err);
      assert.ok(!stream.text.includes('[DONE]'), 'the reload came while the stream ran');
      held.open();

      const chunks = ssePayloads(await stream.done).filter((p): p is any => p !== '[DONE]');
      const oldUsage = chunks.at(-1).usage;
      assert.equal(nanos(oldUsage.cost), BigInt(oldUsage.prompt_tokens) * 1000n + BigInt(oldUsage.completion_tokens) * 2000n);

      const after = (await (await request(false)).json()) as any;
      assert.equal(nanos(after.usage.cost), BigInt(after.usage.prompt_tokens) * 10_000n + BigInt(after.usage.completion_tokens) * 2000n);
    } finally {
      await stop(gw.s);
      await emu.close();
    }
  },
);

/** A USD cost as the API reports it (a JSON number) → nano-USD. */
function nanos(usd: number): bigint {
  return BigInt(Math.round(usd * 1e9));
}
