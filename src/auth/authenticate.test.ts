import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../errors/gateway-error.ts';
import { AccountStore } from '../store/sqlite/account-store.ts';
import { openDatabase } from '../store/sqlite/open-database.ts';
import { hashApiKey, labelApiKey } from './api-key.ts';
import { Authenticator, extractBearer } from './authenticate.ts';

const KEY = `sk-sy-v1-${'A'.repeat(43)}`;
const UNKNOWN = `sk-sy-v1-${'B'.repeat(43)}`;
const NOW = '2026-01-01T00:00:00.000Z';

/** A store with one account and KEY; counts key lookups (what the cache saves). */
function setup(expiresAt: string | null = null) {
  const store = new AccountStore(openDatabase(':memory:'));
  store.createAccount({ id: 'acct_1', name: 'a', accountType: 'user', tier: 'free', defaultModel: null, now: NOW });
  store.createKey({
    hash: hashApiKey(KEY),
    accountId: 'acct_1',
    name: 'k',
    label: labelApiKey(KEY),
    limitNanos: null,
    isManagement: false,
    expiresAt,
    now: NOW,
  });
  let lookups = 0;
  // The authenticator's view of the store contract (async), over the SQLite store.
  const repo = {
    getKey: async (hash: string) => {
      lookups++;
      return store.getKey(hash);
    },
    getKeyBySecret: async (secretHash: string) => {
      lookups++;
      return store.getKeyBySecret(secretHash);
    },
    getAccount: async (id: string) => store.getAccount(id),
  };
  const clock = { now: Date.parse(NOW) };
  return { store, repo, clock, lookups: () => lookups };
}

async function refusal(fn: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.status, 401);
    assert.equal(e.type, 'authentication_error');
    return e;
  }
  assert.fail('expected a 401');
}

test('a valid key resolves to its key and account records', async () => {
  const { repo } = setup();
  const ctx = await new Authenticator(repo).authenticate(KEY);
  assert.equal(ctx.key.hash, hashApiKey(KEY));
  assert.equal(ctx.account.id, 'acct_1');
});

test('missing, empty, malformed and unknown keys get 401; malformed ones never reach the database', async () => {
  const s = setup();
  const auth = new Authenticator(s.repo);
  for (const raw of [undefined, '', 'not-a-key', `${KEY}x`, `sk-sy-v2-${'A'.repeat(43)}`]) {
    assert.match((await refusal(() => auth.authenticate(raw))).message, /Authentication required/);
  }
  assert.equal(s.lookups(), 0);
  await refusal(() => auth.authenticate(UNKNOWN));
  await refusal(() => auth.authenticate(UNKNOWN));
  assert.equal(s.lookups(), 1, 'an unknown key is cached too (a flood of bad keys does not reach SQLite)');
});

test('lookups are cached for the TTL, then read again', async () => {
  const s = setup();
  const auth = new Authenticator(s.repo, { ttlMs: 1000, now: () => s.clock.now });
  await auth.authenticate(KEY);
  await auth.authenticate(KEY);
  assert.equal(s.lookups(), 1);
  s.clock.now += 1000;
  await auth.authenticate(KEY);
  assert.equal(s.lookups(), 2);
});

test('a revoked key is refused as soon as the cache entry is dropped', async () => {
  const s = setup();
  const auth = new Authenticator(s.repo, { ttlMs: 60_000, now: () => s.clock.now });
  await auth.authenticate(KEY);
  s.store.setKeyActive(hashApiKey(KEY), false, 'operator');
  auth.invalidate(hashApiKey(KEY));
  assert.match((await refusal(() => auth.authenticate(KEY))).message, /revoked/);
  s.store.setKeyActive(hashApiKey(KEY), true, 'operator');
  auth.invalidate();
  await auth.authenticate(KEY);
});

test('the external-change watcher is checked on every request (the CLI writes from another process)', async () => {
  const s = setup();
  let checks = 0;
  const auth = new Authenticator(s.repo, {
    ttlMs: 60_000,
    watcher: {
      check: () => {
        checks++;
        auth.invalidate();
      },
    },
  });
  await auth.authenticate(KEY);
  s.store.updateAccount('acct_1', { isActive: false });
  assert.match((await refusal(() => auth.authenticate(KEY))).message, /account of this API key is inactive/);
  assert.equal(checks, 2);
});

test('an expired key is refused from its expiry on', async () => {
  const s = setup('2026-01-01T00:00:10.000Z');
  const auth = new Authenticator(s.repo, { now: () => s.clock.now });
  await auth.authenticate(KEY);
  s.clock.now += 10_000;
  assert.match((await refusal(() => auth.authenticate(KEY))).message, /expired/);
});

test('extractBearer takes the key from "Bearer <key>", any case, and nothing else', () => {
  assert.equal(extractBearer(`Bearer ${KEY}`), KEY);
  assert.equal(extractBearer(`bearer  ${KEY} `), KEY);
  assert.equal(extractBearer(`Basic ${KEY}`), undefined);
  assert.equal(extractBearer('Bearer'), undefined);
  assert.equal(extractBearer(undefined), undefined);
});

test('a lookup that an invalidation overtakes is not cached (the next request reads the store again)', async () => {
  const s = setup();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow = {
    ...s.repo,
    getKey: async (hash: string) => {
      const key = await s.repo.getKey(hash);
      await gate;
      return key;
    },
  };
  const auth = new Authenticator(slow, { ttlMs: 60_000, now: () => s.clock.now });
  const first = auth.authenticate(KEY);
  auth.invalidate(hashApiKey(KEY)); // e.g. the key was revoked while the lookup ran
  release();
  await first;
  await auth.authenticate(KEY);
  assert.equal(s.lookups(), 2);
});

test('a rotated key: the new secret works, the old one until its overlap ends (by the injected clock), then 401', async () => {
  const s = setup();
  const auth = new Authenticator(s.repo, { secretClock: () => s.clock.now });
  const hash = hashApiKey(KEY);
  await auth.authenticate(KEY);
  const NEW = `sk-sy-v1-${'C'.repeat(43)}`;
  s.store.rotateKeySecret(hash, { secretHash: hashApiKey(NEW), previousUntil: new Date(s.clock.now + 60_000).toISOString(), now: NOW });
  auth.invalidate(hash);
  assert.equal((await auth.authenticate(NEW)).key.hash, hash, 'the same record');
  assert.equal((await auth.authenticate(KEY)).key.hash, hash, 'the old secret within its overlap');
  s.clock.now += 60_000;
  assert.match((await refusal(() => auth.authenticate(KEY))).message, /rotated/);
  assert.equal((await auth.authenticate(NEW)).key.hash, hash);

  // A second rotation without overlap: the secret it replaces (cached under its own hash) fails at once.
  const THIRD = `sk-sy-v1-${'D'.repeat(43)}`;
  s.store.rotateKeySecret(hash, { secretHash: hashApiKey(THIRD), previousUntil: null, now: NOW });
  auth.invalidate(hash);
  await refusal(() => auth.authenticate(NEW));
  await refusal(() => auth.authenticate(KEY));
  assert.equal((await auth.authenticate(THIRD)).key.hash, hash);
});

test('authenticateIfCached: undefined until the store has been read, then the same context (or refusal) with no lookup', async () => {
  const s = setup('2026-01-01T00:00:10.000Z');
  const auth = new Authenticator(s.repo, { ttlMs: 60_000, now: () => s.clock.now });
  // A malformed key is refused at once, a key never read is not known yet.
  assert.throws(
    () => auth.authenticateIfCached('not-a-key'),
    (e) => e instanceof GatewayError && e.status === 401,
  );
  assert.equal(auth.authenticateIfCached(KEY), undefined);
  assert.equal(auth.authenticateIfCached(UNKNOWN), undefined);
  assert.equal(s.lookups(), 0);
  const ctx = await auth.authenticate(KEY);
  await refusal(() => auth.authenticate(UNKNOWN));
  assert.equal(s.lookups(), 2);
  assert.equal(auth.authenticateIfCached(KEY), ctx);
  // The cached negative answer and the checks of a cached key hold without the store.
  assert.throws(
    () => auth.authenticateIfCached(UNKNOWN),
    (e) => e instanceof GatewayError && e.status === 401,
  );
  s.clock.now += 10_000;
  assert.throws(
    () => auth.authenticateIfCached(KEY),
    (e) => e instanceof GatewayError && /expired/.test(e.message),
  );
  assert.equal(s.lookups(), 2);
  // A change drops the entry: the next call must read the store again.
  auth.invalidate(hashApiKey(KEY));
  assert.equal(auth.authenticateIfCached(KEY), undefined);
});
