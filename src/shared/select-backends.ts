import { ConfigError } from '../config/config-error.ts';

type Env = Record<string, string | undefined>;

export type Backends = { kind: 'sqlite' } | { kind: 'fleet'; databaseUrl: string; redisUrl: string };

/**
 * Which stores this gateway uses: SQLite (one process; the default, and `sqlite:` URLs), or
 * a fleet — Postgres (`DATABASE_URL=postgres://…` or the file's `database.url`) for the
 * durable records with Redis (`REDIS_URL=redis://…` or `redis.url`) for holds, limits and
 * invalidation. Postgres without Redis is refused: holds and limits kept per process would
 * let N instances spend N times a balance. Redis without Postgres is refused too: SQLite
 * serves one process, with nothing to share. Errors name the setting, never the URL (passwords).
 */
export function selectBackends(env: Env, file: { databaseUrl?: string; redisUrl?: string } = {}): Backends {
  const databaseUrl = nonEmpty(env.DATABASE_URL) ?? nonEmpty(file.databaseUrl);
  const redisUrl = nonEmpty(env.REDIS_URL) ?? nonEmpty(file.redisUrl);
  const dbScheme = databaseUrl === undefined ? 'sqlite' : scheme(databaseUrl);
  const isPostgres = dbScheme === 'postgres' || dbScheme === 'postgresql';
  if (!isPostgres) {
    if (redisUrl !== undefined) {
      throw new ConfigError(
        'env REDIS_URL',
        'Redis is for a fleet of gateways sharing Postgres; set DATABASE_URL=postgres://… too, or unset REDIS_URL to run one process on SQLite',
      );
    }
    return { kind: 'sqlite' };
  }
  if (redisUrl === undefined) {
    throw new ConfigError(
      'env DATABASE_URL',
      'Postgres needs Redis for credit holds, rate limits and invalidation shared by every instance: set REDIS_URL=redis://host:port (or redis.url in the config)',
    );
  }
  const redisScheme = scheme(redisUrl);
  if (redisScheme !== 'redis' && redisScheme !== 'rediss') {
    throw new ConfigError(
      'env REDIS_URL',
      `expected redis://host:port or rediss://host:port, not ${redisScheme === null ? 'a URL without a scheme' : `${redisScheme}:`}`,
    );
  }
  return { kind: 'fleet', databaseUrl: databaseUrl!, redisUrl };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function scheme(url: string): string | null {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  return m === null ? null : m[1]!.toLowerCase();
}
