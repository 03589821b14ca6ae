import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliJson } from '../support/run-cli.ts';
import { npmCommand } from '../support/npm-command.ts';
import { descendants, killLeft, listening, REPO, run, serve, serveEnv, starterKey, untilGone, tempDir } from '../support/serve-process.ts';
import { readSse, ssePayloads } from '../support/sse-reader.ts';

// A graceful stop: SIGTERM while a stream is being written. The stream runs to its end
// (its last chunk and [DONE]), its charge is on disk, the process exits 0 and frees the
// port. Past the drain timeout, what still runs is cut, and charged what it used.

/** A priced model on the simulated provider, streamed at `chunkDelayMs` per chunk. */
function configFile(dir: string, chunkDelayMs: number, drainMs?: number): string {
  const path = join(dir, 'switchyard.yaml');
  writeFileSync(
    path,
    `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: ${chunkDelayMs} }
models:
  - id: acme/paid-sim
    context_length: 32000
    endpoints:
      - provider: sim
        model: sim-fast
        pricing: { prompt: "0.000001", completion: "0.000002" }
${drainMs === undefined ? '' : `timeouts: { drain_ms: ${drainMs} }\n`}`,
  );
  return path;
}

function openStream(origin: string, key: string, maxTokens: number): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'acme/paid-sim',
      stream: true,
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: 'Tell me a long story.' }],
    }),
  });
}

const npm = npmCommand();
test(
  'SIGTERM to `npm start` lets an open stream finish, records its charge, exits 0 and frees the port',
  { skip: npm === null && 'no npm' },
  async () => {
    const dir = tempDir('switchyard-drain');
    // ~80 chunks 50 ms apart: the stream still runs when SIGTERM arrives.
    const config = configFile(dir, 50);
    const [command, ...pre] = npm!;
    const s = run(command!, [...pre, 'start'], {
      cwd: REPO,
      env: serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config, PORT: '0' }),
    });
    const origin = await listening(s);
    const key = await starterKey(s);
    const port = Number(new URL(origin).port);
    const tree = [s.child.pid!, ...descendants(s.child.pid!)];
    try {
      const res = await openStream(origin, key, 80);
      assert.equal(res.status, 200);
      const stream = readSse(res.body!);
      await stream.waitFor(/"content":"[^"]+"/);
      s.child.kill('SIGTERM');
      await s.waitFor(/SIGTERM: shutting down/);
      const text = await stream.done;
      const payloads = ssePayloads(text);
      assert.equal(payloads.at(-1), '[DONE]', text.slice(-500));
      const chunks = payloads.filter((p): p is any => p !== '[DONE]');
      assert.ok(
        chunks.some((c) => c.choices[0]?.finish_reason === 'stop'),
        'the final chunk came',
      );
      const usage = chunks.at(-1).usage;
      assert.ok(usage.completion_tokens > 10, `a long stream: ${JSON.stringify(usage)}`);
      const exit = await s.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, s.stderr);
      assert.deepEqual(await untilGone(tree, port), [], s.stderr);
      assert.match(s.stderr, /waiting up to 30000 ms for 1 request\(s\) in flight/);

      // The charge is on disk: the key's usage, read by the CLI after the gateway exited.
      const expectedNanos = BigInt(usage.prompt_tokens) * 1000n + BigInt(usage.completion_tokens) * 2000n;
      const keys = runCliJson(dir, 'keys', 'list');
      assert.equal(keys.length, 1);
      assert.equal(toNanos(keys[0].usage_usd), expectedNanos);
    } finally {
      killLeft(tree);
    }
  },
);

test('past timeouts.drain_ms a stream still running is cut, charged what it used, and the process exits 0', async () => {
  const dir = tempDir('switchyard-drain-cut');
  const config = configFile(dir, 100, 200);
  const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config }), ['--port', '0']);
  const origin = await listening(s);
  const key = await starterKey(s);
  const port = Number(new URL(origin).port);
  try {
    // ~100 chunks at 100 ms each: far longer than the drain timeout.
    const res = await openStream(origin, key, 400);
    const stream = readSse(res.body!);
    await stream.waitFor(/"content":"[^"]+"/);
    s.child.kill('SIGTERM');
    const text = await stream.done;
    assert.doesNotMatch(text, /\[DONE\]/, 'the stream was cut');
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
    assert.match(s.stderr, /drain timeout \(200 ms\): cancelling 1 request\(s\) still in flight/);
    assert.deepEqual(await untilGone([s.child.pid!], port), []);
    const keys = runCliJson(dir, 'keys', 'list');
    assert.ok(toNanos(keys[0].usage_usd) > 0n, `charged what it used: ${JSON.stringify(keys[0])}`);
  } finally {
    killLeft([s.child.pid!]);
  }
});

/** "0.000174" (USD, decimal text) → nano-USD. */
function toNanos(usd: string): bigint {
  const [whole, frac = ''] = usd.split('.');
  return BigInt(whole!) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9));
}
