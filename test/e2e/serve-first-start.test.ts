import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis } from '../support/redis-server.ts';
import {
  BIN,
  listening,
  run,
  serve,
  serveEnv,
  starterKey,
  starterKeyFile,
  stop,
  tempDir,
  type ServeRun,
} from '../support/serve-process.ts';

// The first start of `switchyard serve` on a fresh machine: a data folder that does not
// exist yet, a port someone else holds, a database it cannot write.

const fresh = () => tempDir('switchyard-first');
const mode = (path: string) => statSync(path).mode & 0o777;

function accounts(env: NodeJS.ProcessEnv): unknown[] {
  const r = spawnSync(process.execPath, [BIN, 'accounts', 'list', '--json'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function keyWorks(origin: string, key: string): Promise<number> {
  return (await fetch(`${origin}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).status;
}

describe('the first start', () => {
  test('into a missing nested data folder: serves, prints a working key, and keeps folder and files private', async () => {
    const base = fresh();
    const dataDir = join(base, 'not', 'there', 'yet');
    const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dataDir }), ['--port', '0']);
    const origin = await listening(s);
    const key = await starterKey(s);
    assert.equal(await keyWorks(origin, key), 200);
    for (const dir of [join(base, 'not'), join(base, 'not', 'there'), dataDir]) assert.equal(mode(dir), 0o700, dir);
    for (const file of ['switchyard.db', 'switchyard.db-wal', 'switchyard.db-shm']) {
      assert.equal(mode(join(dataDir, file)), 0o600, file);
    }
    assert.deepEqual(await stop(s), { code: 0, signal: null });
  });

  test('with stderr a pipe (a log): the key is never printed; the file it names holds it, readable by this user only, and it works', async () => {
    const dataDir = join(fresh(), 'data');
    const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dataDir }), ['--port', '0']);
    const origin = await listening(s);
    await s.waitFor(/^Try: .*\n.*\n/m);
    assert.doesNotMatch(s.stderr, /sk-sy-v1-/, 'no key in the output');
    const file = await starterKeyFile(s);
    assert.equal(file, join(dataDir, 'first-start-key.txt'));
    assert.equal(mode(file), 0o600);
    const key = readFileSync(file, 'utf8').trim();
    assert.match(key, /^sk-sy-v1-/);
    assert.equal(await keyWorks(origin, key), 200);
    // README's curl line, as printed, reads the file.
    assert.match(s.stderr, new RegExp(`^Try: curl ${origin}/v1/chat/completions -H "Authorization: Bearer \\$\\(cat '${file}'\\)"`, 'm'));
    assert.deepEqual(await stop(s), { code: 0, signal: null });
    assert.equal(s.stderr.includes(key), false, 'the key is not in the output');
    assert.doesNotMatch(s.stderr, /sk-sy-v1-/);
  });

  test(
    'on a terminal: the key is printed there, and no file is written',
    { skip: spawnSync('script', ['--version']).status !== 0 && 'no script(1) to give the gateway a terminal' },
    async () => {
      const dataDir = join(fresh(), 'data');
      // script(1) runs the gateway on a pseudo-terminal and copies what it writes to our pipe.
      const command = `exec ${process.execPath} ${BIN} serve --port 0`;
      const s = run('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
        env: serveEnv({ SWITCHYARD_DATA_DIR: dataDir }),
      });
      let out = '';
      s.child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
      const seen = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const m = /^\s+(sk-sy-v1-\S+)\r?$/m.exec(out);
          if (m !== null && /^Try: [^\n]*\n[^\n]*\n/m.test(out)) resolve(m[1]!);
        };
        s.child.stdout!.on('data', check);
        void s.exited.then(() => reject(new Error(`exited before printing a key:\n${out}\n${s.stderr}`)));
      });
      const origin = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
      assert.equal(await keyWorks(origin, seen), 200);
      assert.equal(existsSync(join(dataDir, 'first-start-key.txt')), false);
      await stop(s);
    },
  );

  test('with database.path in the config file pointing into a missing folder: serves and prints a working key', async () => {
    const base = fresh();
    const config = join(base, 'switchyard.yaml');
    const db = join(base, 'missing', 'gateway.db');
    writeFileSync(config, `database:\n  path: ${db}\n`);
    const s = serve(serveEnv({}), ['--port', '0', '--config', config]);
    const origin = await listening(s);
    assert.equal(await keyWorks(origin, await starterKey(s)), 200);
    assert.equal(mode(db), 0o600);
    await stop(s);
  });

  test('on a port in use: exits non-zero with a clear message and creates nothing; the next start prints a working key', async () => {
    const dir = fresh();
    const env = serveEnv({ SWITCHYARD_DATA_DIR: dir });
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as AddressInfo).port;
    try {
      const taken = serve(env, ['--port', String(port)]);
      const exit = await taken.exited;
      assert.equal(exit.code, 1, taken.stderr);
      assert.match(taken.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`));
      assert.doesNotMatch(taken.stderr, /sk-sy-v1-|First start/);
      assert.deepEqual(accounts(env), [], 'no operator account whose key nobody saw');
    } finally {
      holder.close();
    }
    const s = serve(env, ['--port', '0']);
    const origin = await listening(s);
    const key = await starterKey(s);
    assert.equal(await keyWorks(origin, key), 200);
    await stop(s);
  });
});

describe('the first start on Postgres and Redis', { skip: postgresUnavailable() ?? redisUnavailable() ?? false }, () => {
  test("writes the key (0600) into SWITCHYARD_DATA_DIR, which it creates private, and prints only the file's path", async () => {
    const redis = await startRedis();
    try {
      const dataDir = join(fresh(), 'instance', 'data');
      const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dataDir, DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url }), [
        '--port',
        '0',
      ]);
      const origin = await listening(s);
      const file = await starterKeyFile(s);
      assert.equal(file, join(dataDir, 'first-start-key.txt'));
      assert.equal(mode(dataDir), 0o700);
      assert.equal(mode(file), 0o600);
      assert.equal(await keyWorks(origin, readFileSync(file, 'utf8').trim()), 200);
      assert.deepEqual(await stop(s), { code: 0, signal: null });
      assert.doesNotMatch(s.stderr, /sk-sy-v1-/);
    } finally {
      await redis.stop();
      await stopPostgres();
    }
  });
});

// Root writes whatever the modes say (CAP_DAC_OVERRIDE): as root, run the gateway with
// that capability dropped from its bounding set (util-linux's setpriv), so the file modes
// bind it as they bind any other user, while it still reads the checkout.
const asRoot = process.getuid?.() === 0;
const setpriv = asRoot ? spawnSync('setpriv', ['--version']).status === 0 : false;
const noWayToDropRoot =
  asRoot && !setpriv && 'running as root without setpriv (util-linux) to drop CAP_DAC_OVERRIDE, root would write a read-only file';

function serveWithoutDacOverride(env: NodeJS.ProcessEnv, args: string[]): ServeRun {
  if (!asRoot) return serve(env, args);
  return run('setpriv', ['--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-all', process.execPath, BIN, 'serve', ...args], {
    env,
  });
}

describe('a database the gateway cannot write is refused before anything is served', { skip: noWayToDropRoot }, () => {
  function prepared(): { dir: string; env: NodeJS.ProcessEnv } {
    const dir = fresh();
    const env = serveEnv({ SWITCHYARD_DATA_DIR: dir });
    const made = spawnSync(process.execPath, [BIN, 'init'], { env, encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    return { dir, env };
  }

  async function refused(env: NodeJS.ProcessEnv): Promise<string> {
    const s = serveWithoutDacOverride(env, ['--port', '0']);
    const exit = await s.exited;
    assert.equal(exit.code, 1, s.stderr);
    assert.doesNotMatch(s.stderr, /listening on|sk-sy-v1-/);
    return s.stderr;
  }

  test('a read-only database file', async () => {
    const { dir, env } = prepared();
    const db = join(dir, 'switchyard.db');
    chmodSync(db, 0o400);
    const err = await refused(env);
    assert.match(err, new RegExp(`error: cannot write the database ${db}: ${db} is not writable \\(permission denied, EACCES\\)`));
  });

  test('a read-only data folder', async () => {
    const { dir, env } = prepared();
    chmodSync(dir, 0o500);
    const err = await refused(env);
    assert.match(
      err,
      new RegExp(
        `error: cannot write the database ${join(dir, 'switchyard.db')}: its folder ${dir} is not writable \\(permission denied, EACCES\\)`,
      ),
    );
  });
});
