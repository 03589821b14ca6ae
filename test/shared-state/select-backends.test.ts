import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { selectBackends } from '../../src/shared/select-backends.ts';

const PG = 'postgres://sy:s3cret-pw@db:5432/switchyard';

test('no URL and sqlite: URLs keep SQLite', () => {
  assert.deepEqual(selectBackends({}), { kind: 'sqlite' });
  assert.deepEqual(selectBackends({ DATABASE_URL: 'sqlite:./data/x.db' }), { kind: 'sqlite' });
});

test('Postgres with Redis is a fleet; the environment wins over the file', () => {
  assert.deepEqual(selectBackends({ DATABASE_URL: PG, REDIS_URL: 'redis://r:6379' }), {
    kind: 'fleet',
    databaseUrl: PG,
    redisUrl: 'redis://r:6379',
  });
  assert.deepEqual(selectBackends({ REDIS_URL: 'redis://env:1' }, { databaseUrl: PG, redisUrl: 'redis://file:2' }), {
    kind: 'fleet',
    databaseUrl: PG,
    redisUrl: 'redis://env:1',
  });
});

test('Postgres without Redis is refused with a clear message that never shows the password', () => {
  const err = (() => {
    try {
      selectBackends({ DATABASE_URL: PG });
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(err instanceof ConfigError);
  assert.match(err.message, /Postgres needs Redis/);
  assert.match(err.message, /REDIS_URL=redis:\/\/host:port/);
  assert.doesNotMatch(err.message, /s3cret/);
});

test('Redis without Postgres, and a Redis URL of another scheme, are refused', () => {
  assert.throws(() => selectBackends({ REDIS_URL: 'redis://r:6379' }), /set DATABASE_URL=postgres/);
  assert.throws(() => selectBackends({ DATABASE_URL: PG, REDIS_URL: 'http://r:6379' }), /expected redis:\/\/host:port/);
});
