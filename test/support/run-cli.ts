import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The `switchyard` command as an operator runs it: a separate process on the database of
// a test gateway (its data dir and config file), beside the running gateway.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

export function runCli(dir: string, ...args: string[]): CliResult {
  return runCliWithEnv(dir, {}, ...args);
}

/** runCli with more environment (e.g. DATABASE_URL and REDIS_URL of a fleet). */
export function runCliWithEnv(dir: string, env: Record<string, string>, ...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: join(dir, 'switchyard.yaml'), ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs a command with --json that must succeed; returns its parsed output. */
export function runCliJson(dir: string, ...args: string[]): any {
  const r = runCli(dir, ...args, '--json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}
