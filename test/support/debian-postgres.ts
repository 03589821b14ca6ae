import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { userInfo } from 'node:os';

// The fallback of postgres-server.ts: Debian's `postgresql` binaries
// (/usr/lib/postgresql/<version>/bin), run as the `postgres` user when we are root.

/** The newest installed Debian Postgres's bin folder, or null. */
export function debianPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : join(root, versions[0]!, 'bin');
}

function runAs(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString());
  const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString());
  return { uid, gid };
}

/** Initializes a cluster in `dir`/data and starts it on `port`; returns the running server process. */
export async function startDebianPostgres(bin: string, dir: string, port: number, user: string, password: string): Promise<ChildProcess> {
  const ids = runAs();
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o644 });
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', join(dir, 'data'), '-U', user, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-sync'],
    ids,
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr?.toString()}`);
  const child = spawn(
    join(bin, 'postgres'),
    ['-D', join(dir, 'data'), '-p', String(port), '-k', dir, '-h', '127.0.0.1', '-c', 'fsync=off'],
    { ...ids, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Never left running: an exiting test process takes it down (immediate shutdown).
  const kill = () => child.kill('SIGQUIT');
  process.on('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}) before it was ready: ${output}`)));
  });
  return child;
}

export async function stopDebianPostgres(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGINT'); // fast shutdown
  await exited;
}
