import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';
import { descendants, isAlive, killLeft, run, serve, serveEnv, tempDir, untilGone, type ServeRun } from '../support/serve-process.ts';
import { parsePrometheus, sumOf } from '../support/prometheus-text.ts';
import { readSse, ssePayloads } from '../support/sse-reader.ts';

// `switchyard serve --workers N`. On the embedded SQLite store the real CLI refuses N > 1,
// saying how to scale. The cluster itself (primary, signals, restarts, metrics across
// workers) is tested with test/support/cluster-serve-fixture.ts: the real primary, each
// worker the real `switchyard serve` on its own copy of one database.

const FIXTURE = new URL('../support/cluster-serve-fixture.ts', import.meta.url).pathname;

test('--workers 2 (and SWITCHYARD_WORKERS=2) on the embedded SQLite store is refused, saying how to scale; nothing is created', async () => {
  for (const [args, extra] of [
    [['--workers', '2'], {}],
    [[], { SWITCHYARD_WORKERS: '2' }],
  ] as const) {
    const dir = join(tempDir('switchyard-workers-sqlite'), 'data');
    const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, PORT: '0', ...extra }), [...args]);
    const exit = await s.exited;
    await s.closed;
    assert.deepEqual(exit, { code: 1, signal: null }, s.stderr);
    assert.match(s.stderr, /2 workers need stores that several gateway processes share/);
    assert.match(s.stderr, /DATABASE_URL=postgres:\/\/.*REDIS_URL=redis:\/\/.*docs\/deployment\.md/);
    assert.doesNotMatch(s.stderr, /listening on/);
    assert.equal(runCli(dir, 'accounts', 'list').code, 1, 'no database was created');
  }
});

test('--workers takes a number of workers or auto; anything else is refused', async () => {
  const dir = tempDir('switchyard-workers-bad');
  for (const bad of ['0', 'two', '1.5', '-1']) {
    const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir }), ['--workers', bad]);
    assert.deepEqual(await s.exited, { code: 1, signal: null });
    await s.closed;
    assert.match(s.stderr, /--workers: ".*" is not a number of workers \(1 to 256, or auto for one per core\)/);
  }
});

/** A priced model on the simulated provider, streamed at `chunkDelayMs` per chunk. */
function clusterSetup(chunkDelayMs: number): { dir: string; config: string; key: string; template: string } {
  const dir = tempDir('switchyard-workers');
  const template = join(dir, 'template');
  mkdirSync(template);
  const config = join(template, 'switchyard.yaml');
  writeFileSync(
    config,
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
`,
  );
  const cli = (...args: string[]): any => {
    const r = runCli(template, ...args, '--json');
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  cli('init');
  const account = cli('accounts', 'create', '--name', 'Cluster', '--credits', '10', '--tier', 'tier2');
  const { key } = cli('keys', 'create', '--account', account.id, '--name', 'cluster test');
  return { dir, config, key, template: join(template, 'switchyard.db') };
}

function startCluster(setup: { dir: string; config: string; template: string }, workers = 2): ServeRun {
  return run(process.execPath, [FIXTURE, 'serve', '--port', '0', '--config', setup.config], {
    env: serveEnv({ FIXTURE_WORKERS: String(workers), FIXTURE_BASE: setup.dir, FIXTURE_TEMPLATE: setup.template }),
  });
}

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
function post(origin: string, key: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/v1/chat/completions`,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function scrapeOnce(origin: string): Promise<ReturnType<typeof parsePrometheus>> {
  return new Promise((resolve, reject) => {
    request(`${origin}/metrics`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(parsePrometheus(text)) : reject(new Error(`${res.statusCode}: ${text}`))));
    })
      .on('error', reject)
      .end();
  });
}

function workerPids(s: ServeRun): number[] {
  return [...s.stderr.matchAll(/worker \d+ \(pid (\d+)\) listening on/g)].map((m) => Number(m[1]));
}

/** Key usage in nano-USD summed over the workers' databases, read by the CLI after they exited. */
function usageNanos(dir: string, config: string, workers: number): { total: bigint; generations: number[] } {
  let total = 0n;
  const generations: number[] = [];
  for (let w = 1; w <= workers; w++) {
    const wdir = join(dir, `worker-${w}`);
    copyFileSync(config, join(wdir, 'switchyard.yaml'));
    const keys = JSON.parse(runCli(wdir, 'keys', 'list', '--json').out);
    total += toNanos(keys[0].usage_usd);
    const list = runCli(wdir, 'generations', 'list', '--json');
    assert.equal(list.code, 0, list.err);
    generations.push(JSON.parse(list.out).length);
  }
  return { total, generations };
}

function toNanos(usd: string): bigint {
  const [whole, frac = ''] = usd.split('.');
  return BigInt(whole!) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9));
}

const ask = (stream: boolean, maxTokens = 8) => ({
  model: 'acme/paid-sim',
  stream,
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'Tell me a story.' }],
});

test('two workers serve one port; /metrics from either answers for both; SIGTERM to the primary drains a stream, records its charge and every process exits 0', async () => {
  const setup = clusterSetup(50);
  const s = startCluster(setup);
  let tree: number[] = [];
  try {
    const port = Number((await s.waitFor(/2 workers serving on [\d.]+:(\d+) \(primary pid \d+\)/))[1]);
    const origin = `http://127.0.0.1:${port}`;
    const pids = workerPids(s);
    assert.equal(new Set(pids).size, 2, s.stderr);
    tree = [s.child.pid!, ...descendants(s.child.pid!)];
    assert.deepEqual([...pids].sort(), descendants(s.child.pid!).sort(), "the workers are the primary's children");

    // Six requests on six connections: round-robin gives each worker three.
    for (let i = 0; i < 6; i++) {
      const r = await post(origin, setup.key, ask(false));
      assert.equal(r.status, 200, r.text);
    }
    // Every scrape, whichever worker answers it, counts the six.
    for (let i = 0; i < 2; i++) {
      const m = await scrapeOnce(origin);
      assert.equal(sumOf(m, 'switchyard_requests_total', { route: 'chat', model: 'acme/paid-sim', status_class: '2xx' }), 6);
      assert.equal(sumOf(m, 'switchyard_request_duration_seconds_count', { model: 'acme/paid-sim' }), 6);
      assert.equal(sumOf(m, 'switchyard_build_info'), 1, 'build info is the same in every worker: not summed');
    }

    // A long stream, then SIGTERM to the primary: the stream ends whole, every process exits.
    const res = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask(true, 80), stream_options: { include_usage: true } }),
    });
    assert.equal(res.status, 200);
    const stream = readSse(res.body!);
    await stream.waitFor(/"content":"[^"]+"/);
    s.child.kill('SIGTERM');
    await s.waitFor(/SIGTERM: stopping 2 worker\(s\)/);
    const payloads = ssePayloads(await stream.done);
    assert.equal(payloads.at(-1), '[DONE]');
    const usage = payloads.filter((p): p is any => p !== '[DONE]').at(-1).usage;
    assert.ok(usage.completion_tokens > 10, JSON.stringify(usage));
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
    await s.closed;
    assert.deepEqual(await untilGone(tree, port), [], s.stderr);
    assert.match(s.stderr, /worker 1 \(pid \d+\) exited \(code 0\)/);
    assert.match(s.stderr, /worker 2 \(pid \d+\) exited \(code 0\)/);

    // Charged: the six small answers and the stream, over the two workers' databases.
    const { total, generations } = usageNanos(setup.dir, setup.config, 2);
    assert.deepEqual(generations.sort(), [3, 4], 'each worker served three requests, one of them the stream too');
    const streamNanos = BigInt(usage.prompt_tokens) * 1000n + BigInt(usage.completion_tokens) * 2000n;
    assert.ok(total > streamNanos, `${total} > ${streamNanos}`);
  } finally {
    killLeft(tree);
  }
});

test('a worker that dies is restarted on the same port; SIGHUP reaches every worker', { timeout: 60_000 }, async () => {
  const setup = clusterSetup(0);
  const s = startCluster(setup);
  let tree: number[] = [];
  try {
    const port = Number((await s.waitFor(/2 workers serving on [\d.]+:(\d+)/))[1]);
    const origin = `http://127.0.0.1:${port}`;
    const first = Number(/worker 1 \(pid (\d+)\) listening on/.exec(s.stderr)![1]);
    tree = [s.child.pid!, ...descendants(s.child.pid!)];
    process.kill(first, 'SIGKILL');
    await s.waitFor(new RegExp(`worker 1 \\(pid ${first}\\) exited \\(signal SIGKILL\\)`));
    await s.waitFor(/restarting worker 1 in 50 ms/);
    // While the new worker starts (it waits for the dead one's SQLite lease), a scrape is
    // answered by the worker that serves, from the workers that serve.
    const during = await scrapeOnce(origin);
    assert.equal(sumOf(during, 'switchyard_build_info'), 1);
    const again = Number((await s.waitFor(new RegExp(`worker 1 \\(pid (?!${first}\\))(\\d+)\\) listening on`)))[1]);
    assert.notEqual(again, first);
    assert.ok(isAlive(again));
    tree.push(again);
    for (let i = 0; i < 4; i++) assert.equal((await post(origin, setup.key, ask(false))).status, 200);

    s.child.kill('SIGHUP');
    await s.waitFor(/worker 1: config reloaded: generation 2/);
    await s.waitFor(/worker 2: config reloaded: generation 2/);

    s.child.kill('SIGINT');
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
    assert.deepEqual(await untilGone(tree, port), [], s.stderr);
  } finally {
    killLeft(tree);
  }
});

test('POST /admin/config/reload on one worker reloads every worker, as SIGHUP does', { timeout: 60_000 }, async () => {
  const setup = clusterSetup(0);
  const admin = JSON.parse(
    runCli(join(setup.dir, 'template'), 'keys', 'create', '--account', adminAccount(setup), '--name', 'ops', '--admin', '--json').out,
  ).key as string;
  const s = startCluster(setup);
  let tree: number[] = [];
  try {
    const port = Number((await s.waitFor(/2 workers serving on [\d.]+:(\d+)/))[1]);
    tree = [s.child.pid!, ...descendants(s.child.pid!)];
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        `http://127.0.0.1:${port}/api/v1/admin/config/reload`,
        { method: 'POST', agent: false, headers: { authorization: `Bearer ${admin}` } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(JSON.parse(answer.text).data.generation, 2);
    const asked = Number((await s.waitFor(/worker (\d): config reloaded \(asked over HTTP\): generation 2/))[1]);
    await s.waitFor(new RegExp(`worker ${asked} reloaded its config over HTTP: the other workers reload too`));
    await s.waitFor(new RegExp(`worker ${asked === 1 ? 2 : 1}: config reloaded: generation 2`));

    s.child.kill('SIGINT');
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
    assert.deepEqual(await untilGone(tree, port), [], s.stderr);
  } finally {
    killLeft(tree);
  }
});

/** The operator account of the cluster's template database (where `keys create --admin` belongs). */
function adminAccount(setup: { dir: string }): string {
  const accounts = JSON.parse(runCli(join(setup.dir, 'template'), 'accounts', 'list', '--json').out) as { id: string; type: string }[];
  return accounts.find((a) => a.type === 'operator')?.id ?? accounts[0]!.id;
}

test('a worker that cannot serve (the port is taken) stops the others and the primary exits 1', async () => {
  const setup = clusterSetup(0);
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  const s = run(process.execPath, [FIXTURE, 'serve', '--port', String(port), '--config', setup.config], {
    env: serveEnv({ FIXTURE_WORKERS: '2', FIXTURE_BASE: setup.dir, FIXTURE_TEMPLATE: setup.template }),
  });
  try {
    assert.deepEqual(await s.exited, { code: 1, signal: null }, s.stderr);
    await s.closed;
    assert.match(s.stderr, /the address is already in use \(EADDRINUSE\)/);
    assert.match(s.stderr, /worker \d exited before it could serve: stopping/);
    assert.doesNotMatch(s.stderr, /restarting worker/);
  } finally {
    killLeft([s.child.pid!, ...descendants(s.child.pid!)]);
    blocker.close();
  }
});

test('a primary killed with SIGKILL leaves no worker behind', async () => {
  const setup = clusterSetup(0);
  const s = startCluster(setup);
  let tree: number[] = [];
  try {
    const port = Number((await s.waitFor(/2 workers serving on [\d.]+:(\d+)/))[1]);
    tree = [s.child.pid!, ...descendants(s.child.pid!)];
    assert.equal(tree.length, 3, s.stderr);
    s.child.kill('SIGKILL');
    assert.deepEqual(await s.exited, { code: null, signal: 'SIGKILL' });
    // The workers' IPC channel closes: Node's cluster makes each exit at once.
    assert.deepEqual(await untilGone(tree, port), [], s.stderr);
  } finally {
    killLeft(tree);
  }
});
