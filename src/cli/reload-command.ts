import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError } from '../config/config-error.ts';
import { openServeLeaseReader, type ServeLeaseReader } from '../store/serve-lease.ts';
import { loadCliConfig } from './load-cli-config.ts';
import { emit } from './output.ts';

/** How long the gateway has to report the outcome of the reload it was asked for. */
const REPORT_TIMEOUT_MS = 15_000;
const POLL_MS = 100;

/**
 * `switchyard reload [--config PATH] [--json]`: asks the gateway serving the configured
 * database to load its config file again, and says whether it was accepted.
 *
 * The gateway is found through the database's serve lease (store/serve-lease.ts: its pid
 * and host); it is sent SIGHUP only when it runs on this host. The outcome is read back
 * from the database (store/sqlite/reload-status.ts), where the gateway writes every reload
 * attempt: exit 0 when accepted, 1 with the gateway's error when refused (the previous
 * config then stays in force), or when no gateway answers.
 */
export async function runReload(values: { config?: string; json?: boolean }): Promise<number> {
  const json = values.json === true;
  const fail = (message: string, extra: Record<string, unknown> = {}): number => {
    if (json) emit(true, { ok: false, error: message, ...extra }, () => '');
    else process.stderr.write(`${message}\n`);
    return 1;
  };
  let path: string;
  try {
    const database = loadCliConfig(values, 'stores').database;
    if (database.url !== undefined) {
      return fail(
        'switchyard reload finds the gateway through the SQLite serve lease; a fleet on Postgres has none: send SIGHUP to each gateway instance (e.g. kill -HUP <pid>)',
      );
    }
    path = database.path;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // The gateway would refuse it the same way: not worth a signal.
    return fail(`config reload refused: ${err.message}; the gateway was not asked, its config stays in force`);
  }
  if (path === ':memory:' || !existsSync(path)) return fail(`no gateway serves ${path}: the database does not exist`);
  const lease = openServeLeaseReader(path);
  try {
    return await signalAndWait(lease, path, json, fail);
  } finally {
    lease.close();
  }
}

async function signalAndWait(
  lease: ServeLeaseReader,
  path: string,
  json: boolean,
  fail: (m: string, extra?: Record<string, unknown>) => number,
): Promise<number> {
  const holder = lease.holder();
  if (holder === null || holder.expiresAt < Date.now()) return fail(`no gateway is serving ${path} (no live serve lease)`);
  if (holder.host !== hostname()) {
    return fail(`the gateway serving ${path} runs on host ${holder.host} (pid ${holder.pid}), not here; run switchyard reload there`);
  }
  const before = lease.reloadStatus();
  const since = before !== null && before.pid === holder.pid ? before.attempt : 0;
  try {
    process.kill(holder.pid, 'SIGHUP');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPERM') return fail(`not allowed to signal the gateway (pid ${holder.pid}): run switchyard reload as its user`);
    return fail(`the gateway (pid ${holder.pid}) is not running (${code ?? (err as Error).message})`);
  }
  const deadline = Date.now() + REPORT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await delay(POLL_MS);
    const now = lease.reloadStatus();
    if (now === null || now.pid !== holder.pid || now.attempt <= since) continue;
    if (!now.ok) {
      return fail(`config reload refused by the gateway (pid ${holder.pid}): ${now.error}; generation ${now.generation} stays in force`, {
        pid: holder.pid,
        generation: now.generation,
      });
    }
    emit(
      json,
      { ok: true, pid: holder.pid, generation: now.generation, at: now.at },
      () => `config reloaded by the gateway (pid ${holder.pid}): generation ${now.generation} in force`,
    );
    return 0;
  }
  return fail(`the gateway (pid ${holder.pid}) did not report the outcome within ${REPORT_TIMEOUT_MS / 1000} s; see its log`);
}
