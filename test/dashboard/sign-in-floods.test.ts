import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Sign-in floods over real HTTP: a success never clears an address's failures, successes
// are bounded per address too, a key keeps at most 20 sessions (signing in once more ends
// the oldest), and each sign-in removes a bounded batch of expired sessions through an index.

async function signIn(
  gw: TestGateway,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; cookie: string | null }> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  await res.arrayBuffer();
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, cookie: setCookie === null ? null : setCookie.split(';')[0]! };
}

async function signedIn(gw: TestGateway, cookie: string): Promise<boolean> {
  const res = await fetch(`${gw.origin}/api/v1/dashboard/session`, { headers: { cookie } });
  return ((await res.json()) as { signed_in: boolean }).signed_in;
}

async function withGateway(fn: (gw: TestGateway, management: string, hash: string) => Promise<void>): Promise<void> {
  const gw = await startTestGateway({ yaml: 'sim: true\nserver:\n  trust_proxy: 127.0.0.1\n' });
  try {
    const m = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true });
    await fn(gw, m.key, m.record.hash);
  } finally {
    await gw.close();
  }
}

const WRONG = 'sk-sy-v1-' + 'A'.repeat(43);
const sessionRows = (gw: TestGateway, keyHash: string): number =>
  Number((gw.db.prepare('SELECT count(*) AS n FROM dashboard_sessions WHERE key_hash = ?').get(keyHash) as { n: number }).n);

describe('sign-in floods', () => {
  test('36 bad guesses interleaved with 4 good sign-ins: the good ones do not reset the count, the eleventh failure is refused', async () => {
    await withGateway(async (gw, management) => {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await signIn(gw, i % 10 === 9 ? management : WRONG)).status);
      // 9 failures, a success, then the tenth failure; from then on everything is refused, good keys too.
      assert.deepEqual(statuses.slice(0, 11), [401, 401, 401, 401, 401, 401, 401, 401, 401, 200, 401]);
      assert.ok(
        statuses.slice(11).every((s) => s === 429),
        statuses.join(' '),
      );
      // Another address is not affected.
      assert.equal((await signIn(gw, management, { 'x-forwarded-for': '203.0.113.7' })).status, 200);
    });
  });

  test('successful sign-ins are bounded per address too (30 a minute)', async () => {
    await withGateway(async (gw, management) => {
      const statuses: number[] = [];
      for (let i = 0; i < 32; i++) statuses.push((await signIn(gw, management, { 'x-forwarded-for': '198.51.100.1' })).status);
      assert.deepEqual(statuses.filter((s) => s === 200).length, 30);
      assert.deepEqual(statuses.slice(30), [429, 429]);
    });
  });

  test('a key keeps its 20 newest sessions: the 21st sign-in ends the oldest, rows never pile up', async () => {
    await withGateway(async (gw, management, hash) => {
      const cookies: string[] = [];
      for (let i = 0; i < 25; i++) {
        const s = await signIn(gw, management, { 'x-forwarded-for': `192.0.2.${i}` });
        assert.equal(s.status, 200);
        cookies.push(s.cookie!);
      }
      assert.equal(sessionRows(gw, hash), 20);
      const live = [];
      for (const c of cookies) live.push(await signedIn(gw, c));
      assert.deepEqual(live, [...Array(5).fill(false), ...Array(20).fill(true)]);
    });
  });

  test('a sign-in removes at most 100 expired sessions, found through the expiry index, not a walk of the table', async () => {
    await withGateway(async (gw, management) => {
      const past = '2020-01-01T00:00:00.000Z';
      for (let i = 0; i < 150; i++) await gw.services.stores.sessions.insert(`expired-${i}`, `key-${i}`, past, past, past, 20);
      const expired = (): number =>
        Number(
          (
            gw.db.prepare('SELECT count(*) AS n FROM dashboard_sessions WHERE expires_at < ?').get(new Date().toISOString()) as {
              n: number;
            }
          ).n,
        );
      assert.equal(expired(), 150);
      assert.equal((await signIn(gw, management)).status, 200);
      assert.equal(expired(), 50);
      assert.equal((await signIn(gw, management)).status, 200);
      assert.equal(expired(), 0);
      const plan = (sql: string): string => JSON.stringify(gw.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x', 1));
      assert.match(
        plan('SELECT id_hash FROM dashboard_sessions WHERE expires_at < ? LIMIT ?'),
        /USING (COVERING )?INDEX dashboard_sessions_expiry/,
      );
      assert.match(
        plan('SELECT id_hash FROM dashboard_sessions WHERE key_hash = ? ORDER BY created_at DESC LIMIT ?'),
        /USING (COVERING )?INDEX dashboard_sessions_key_created/,
      );
    });
  });
});
