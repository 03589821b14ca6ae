import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { args, command, copies, env, ignoredBy, parseDockerfile, stage, type Stage } from '../support/dockerfile.ts';
import { listening, REPO, run, serveEnv, stop, tempDir, type ServeRun } from '../support/serve-process.ts';

// The image as built from the Dockerfile: its dashboard answers, /health is ok and the sim
// answers a chat request with the first start's key. Where a Docker daemon runs, the real
// image is built and run. Elsewhere the image's files are laid out as its stages would lay
// them out (each COPY of the build context through .dockerignore, each COPY --from of an
// earlier stage's folder, the build stage's RUNs run, the production dependencies only)
// and the image's CMD, with its ENV, is started there.

const dockerfile = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
const ignored = ignoredBy(readFileSync(join(REPO, '.dockerignore'), 'utf8'));
const dockerRuns = spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };

/** COPY of context files: what the context holds at `source`, minus what .dockerignore drops. */
function copyFromContext(source: string, to: string): void {
  cpSync(join(REPO, source), to, {
    recursive: true,
    filter: (src) => {
      const rel = relative(REPO, src);
      return rel === '' || !ignored(rel);
    },
  });
}

/**
 * What `npm ci` puts in node_modules, from this checkout's install (the same lockfile):
 * each top-level package linked, dev ones only when `dev`; .bin for the build's tools.
 */
function installedDependencies(to: string, dev: boolean): void {
  mkdirSync(to, { recursive: true });
  const top = Object.entries(lock.packages).filter(([path, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && (dev || p.dev !== true));
  for (const [path] of top) {
    const name = path.slice('node_modules/'.length);
    if (!existsSync(join(REPO, path))) continue; // an optional package for another platform
    mkdirSync(dirname(join(to, name)), { recursive: true });
    symlinkSync(join(REPO, path), join(to, name));
  }
  if (dev) symlinkSync(join(REPO, 'node_modules', '.bin'), join(to, '.bin'));
}

/** A stage's RUN steps, each `&&` part on its own. */
function runSteps(s: Stage): string[] {
  return args(s, 'RUN').flatMap((r) => r.split(/\s*&&\s*/));
}

/** Lays out one stage in `dir` (its WORKDIR); `stageDirs` holds the earlier stages' folders. */
function layOut(s: Stage, dir: string, stageDirs: Map<string, string>): void {
  assert.deepEqual(args(s, 'WORKDIR'), ['/app'], `stage ${s.name} works in /app`);
  mkdirSync(dir, { recursive: true });
  for (const c of copies(s)) {
    for (const source of c.sources) {
      const to = c.dest.endsWith('/') ? join(dir, c.dest, source.split('/').at(-1)!) : join(dir, c.dest);
      if (c.from === null) {
        copyFromContext(source, to);
        continue;
      }
      const from = stageDirs.get(c.from);
      assert.ok(from !== undefined && source.startsWith('/app/'), `COPY --from=${c.from} ${source}: from an earlier stage's /app`);
      cpSync(join(from, source.slice('/app/'.length)), to, { recursive: true, verbatimSymlinks: true });
    }
    // npm ci runs once the package files are in: the install is what this checkout installed from the same lockfile.
    const install = runSteps(s).find((r) => r.startsWith('npm ci '));
    if (install !== undefined && existsSync(join(dir, 'package-lock.json')) && !existsSync(join(dir, 'node_modules'))) {
      installedDependencies(join(dir, 'node_modules'), !install.includes('--omit=dev'));
    }
  }
}

/** Runs a stage's `node ...` steps in its folder, as the image's build would; each must succeed. */
function runNodeSteps(s: Stage, dir: string): void {
  for (const step of runSteps(s).filter((r) => r.startsWith('node '))) {
    const r = spawnSync(process.execPath, step.split(' ').slice(1), {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, SWITCHYARD_TYPE_STRIPPED_CACHE: '' },
    });
    assert.equal(r.status, 0, `RUN ${step} in stage ${s.name}:\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /could not|error/i, `RUN ${step} in stage ${s.name} says nothing went wrong`);
  }
}

interface Started {
  origin: string;
  key: string;
  /** The first start's output. */
  banner: string;
  /** Runs a command line as `docker exec <container> sh -c` would; its stdout. */
  shell: (line: string) => string;
  stop: () => Promise<void>;
}

/**
 * The runtime stage's `ln -s TARGET LINK` steps, in the laid-out image: /app is the app's
 * folder, any other absolute path is under `fs`. Returns the folders of the links made
 * (the image's PATH has them: /usr/local/bin).
 */
function linkSteps(s: Stage, app: string, fs: string): string[] {
  const place = (p: string) => (p.startsWith('/app/') ? join(app, p.slice('/app/'.length)) : join(fs, p));
  const dirs: string[] = [];
  for (const step of runSteps(s).filter((r) => r.startsWith('ln -s '))) {
    const [target, link] = step.split(' ').slice(2);
    mkdirSync(dirname(place(link!)), { recursive: true });
    symlinkSync(place(target!), place(link!));
    dirs.push(dirname(place(link!)));
  }
  return dirs;
}

/** Without Docker: the image's files laid out in a folder and its CMD started there. */
function startLaidOut(): Promise<Started> {
  const root = tempDir('switchyard-image');
  const dirs = new Map<string, string>();
  for (const s of dockerfile) {
    const dir = join(root, s.name);
    layOut(s, dir, dirs);
    if (s.name !== 'runtime') runNodeSteps(s, dir); // the build stage builds the dashboard
    dirs.set(s.name, dir);
  }
  const runtime = stage(dockerfile, 'runtime');
  const app = dirs.get('runtime')!;
  runNodeSteps(runtime, app); // the type-stripped sources, cached
  assert.ok(readdirSync(join(app, 'node_modules', '.cache', 'switchyard-type-stripped')).length > 100, 'the type-stripped cache is filled');
  assert.equal(existsSync(join(app, 'bench')), false, 'no bench in the image');
  assert.equal(lstatSync(join(app, 'node_modules', 'vite'), { throwIfNoEntry: false }), undefined, 'no dev dependency in the image');
  // The image's PATH: its links (the CLI as `switchyard`), then the system's, where `node` is Node 24.
  const path = [...linkSteps(runtime, app, join(root, 'fs')), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  const [bin, ...argv] = command(runtime);
  assert.equal(bin, 'node');
  const data = join(root, 'data');
  const imageEnv = serveEnv({
    ...env(runtime),
    PATH: path,
    SWITCHYARD_DATA_DIR: data,
    HOST: '127.0.0.1',
    PORT: '0',
    SWITCHYARD_TYPE_STRIPPED_CACHE: '',
  });
  const s: ServeRun = run(process.execPath, argv, { cwd: app, env: imageEnv });
  const shell = (line: string): string => {
    const r = spawnSync('sh', ['-c', line], { cwd: app, env: imageEnv, encoding: 'utf8' });
    assert.equal(r.status, 0, `${line}:\n${r.stderr}`);
    return r.stdout;
  };
  return listening(s).then(async (origin) => {
    await s.waitFor(/--admin\n/);
    return {
      origin,
      key: readFileSync(join(data, 'first-start-key.txt'), 'utf8').trim(),
      banner: s.stderr,
      shell,
      stop: async () => void (await stop(s)),
    };
  });
}

/** With Docker: the image built from this checkout and run, on a loopback port. */
async function startImage(): Promise<Started> {
  const tag = `switchyard-layout-test:${process.pid}`;
  const docker = (...a: string[]) => {
    const r = spawnSync('docker', a, { cwd: REPO, encoding: 'utf8' });
    assert.equal(r.status, 0, `docker ${a.join(' ')}:\n${r.stderr}`);
    return r.stdout.trim();
  };
  docker('build', '-q', '-t', tag, '.');
  const id = docker('run', '-d', '-p', '127.0.0.1::8080', tag);
  const origin = `http://${docker('port', id, '8080/tcp').split('\n')[0]}`;
  const stopIt = async () => {
    spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
    spawnSync('docker', ['rmi', tag], { stdio: 'ignore' });
  };
  const shell = (line: string) => docker('exec', id, 'sh', '-c', line);
  // The first start's output ends with the admin key's command: the key file is written by then.
  for (const until = Date.now() + 60_000; ;) {
    const banner = spawnSync('docker', ['logs', id], { encoding: 'utf8' }).stderr;
    if (/--admin\n/.test(banner)) return { origin, key: shell('cat /data/first-start-key.txt').trim(), banner, shell, stop: stopIt };
    if (docker('inspect', '-f', '{{.State.Running}}', id) !== 'true' || Date.now() > until) {
      await stopIt();
      throw new Error(`the container did not finish its first start:\n${banner}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200)); // polling another process's log: no event to wait on
  }
}

let started: Started | null = null;
after(async () => started?.stop());

test(`the image (${dockerRuns ? 'built and run by Docker' : 'its files laid out as its stages would, no Docker here'}) serves the dashboard, /health and a chat answer from the sim`, async () => {
  started = dockerRuns ? await startImage() : await startLaidOut();
  const { origin, key } = started;

  const dashboard = await fetch(`${origin}/dashboard/`);
  assert.equal(dashboard.status, 200, await dashboard.clone().text());
  assert.match(dashboard.headers.get('content-type') ?? '', /^text\/html/);
  const html = await dashboard.text();
  assert.match(html, /<title>Switchyard dashboard<\/title>/);
  const script = /src="([^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script !== undefined, html);
  const asset = await fetch(new URL(script, `${origin}/dashboard/`));
  assert.equal(asset.status, 200, `the dashboard's script ${script}`);
  await asset.arrayBuffer();

  const health = await fetch(`${origin}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });

  const chat = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'Hello' }] }),
  });
  const body = (await chat.json()) as { choices?: Array<{ message: { content: string } }>; provider?: string };
  assert.equal(chat.status, 200, JSON.stringify(body));
  assert.ok((body.choices?.[0]?.message.content ?? '').length > 0, JSON.stringify(body));

  // The first start's output leads to the dashboard: in the image the CLI is `switchyard` on
  // PATH (docker exec), and the management key it makes as printed signs in.
  const line = /^ {4}(.*\bswitchyard keys create --account acct_[\w-]+ --name dashboard --management)$/m.exec(started.banner)?.[1];
  assert.ok(line !== undefined, started.banner);
  assert.match(line, /^(\S+=\S+ )*switchyard keys create/, "the image's CLI is on PATH: no npx, no path");
  const made = started.shell(line);
  const managementKey = /^ {4}(sk-sy-v1-\S+)$/m.exec(made)?.[1];
  assert.ok(managementKey !== undefined, made);
  const session = await fetch(`${origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: managementKey }),
  });
  assert.equal(session.status, 200, await session.clone().text());
  assert.equal(((await session.json()) as { kind: string }).kind, 'management');
});
