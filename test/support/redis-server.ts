import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmdirSync, existsSync } from 'node:fs';
import { once } from 'node:events';
import { userInfo } from 'node:os';
import { freePort } from './free-port.ts';

// A real Redis server for tests: Debian's redis-server on loopback, one per test file
// (cheap: a few ms to start), no persistence. When redis-server is missing and we are
// root, it is installed with apt-get (once; a lock directory keeps parallel test files
// from racing); otherwise `redisUnavailable()` says why and the tests skip.

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`): for the failure tests. */
  restart(): Promise<void>;
}

const BINARY = '/usr/bin/redis-server';
const LOCK = '/tmp/switchyard-test-apt.lock';
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Why Redis tests cannot run here, or null when they can (installs redis-server if it can). */
export function redisUnavailable(): string | null {
  if (hasRedis()) return null;
  if (userInfo().uid !== 0) return 'redis-server is not installed and we are not root to apt-get install it';
  installOnce();
  return hasRedis() ? null : 'redis-server could not be installed with apt-get';
}

function hasRedis(): boolean {
  return existsSync(BINARY) || spawnSync('redis-server', ['--version']).status === 0;
}

function installOnce(): void {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (hasRedis()) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200); // another file installs it
    }
  }
  try {
    if (hasRedis()) return;
    spawnSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server'], {
      stdio: 'ignore',
    });
  } finally {
    rmdirSync(LOCK);
  }
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child === null) return;
      const c = child;
      child = null;
      const exited = once(c, 'exit');
      c.kill('SIGTERM');
      await exited;
      running.delete(c);
    },
    async restart() {
      if (child !== null) throw new Error('redis is running');
      child = await launch(port);
    },
  };
}

async function launch(port: number): Promise<ChildProcess> {
  const binary = existsSync(BINARY) ? BINARY : 'redis-server';
  const child = spawn(binary, ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      running.delete(child);
      reject(new Error(`redis-server exited (${code}) before it was ready: ${output}`));
    });
  });
  return child;
}

/** Resolves when a node-redis client is (re)connected; unlike events.once, its connection errors meanwhile do not reject. */
export function readyAgain(client: { once(event: 'ready', listener: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => client.once('ready', () => resolve()));
}
