import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The documented promise: a periodic sweep releases hold rows whose requests can no longer
// settle while the gateway runs, not only at start-up.

describe('the periodic sweep of stale credit holds', () => {
  let gw: TestGateway;
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const logged = (pattern: RegExp) => new Promise<string>((resolve) => waiters.push({ pattern, resolve }));
  before(async () => {
    gw = await startTestGateway({
      credits: '3',
      holdSweepMs: 20,
      log: (line) => {
        for (const w of waiters.splice(0)) {
          if (w.pattern.test(line)) w.resolve(line);
          else waiters.push(w);
        }
      },
    });
  });
  after(() => gw.close());

  test('a hold row left behind while the gateway runs is released by the sweep, charging nothing', { timeout: 30_000 }, async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const balanceBefore = (
      (await (await fetch(`${gw.origin}/v1/key?details=true`, { headers: auth })).json()) as { data: { balance: number } }
    ).data.balance;
    // Another connection leaves a hold whose request will never settle (expired a minute ago).
    const released = logged(/released 1 stale credit hold/);
    const other = new DatabaseSync(join(gw.dir, 'switchyard.db'));
    other.exec('PRAGMA busy_timeout = 5000');
    const past = new Date(Date.now() - 60_000).toISOString();
    other
      .prepare('INSERT INTO reservations (id, account_id, key_hash, amount_nanos, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run('gen-left-behind', gw.accountId, gw.keyHash, 2_000_000_000, past, past);
    other.close();

    await released;
    assert.equal(gw.db.prepare('SELECT count(*) AS n FROM reservations').get()!.n, 0);
    const record = (await (await fetch(`${gw.origin}/api/v1/generation?id=gen-left-behind`, { headers: auth })).json()) as {
      data: { error_code: string; total_cost: number };
    };
    assert.equal(record.data.error_code, 'interrupted');
    assert.equal(record.data.total_cost, 0);
    const balanceAfter = (
      (await (await fetch(`${gw.origin}/v1/key?details=true`, { headers: auth })).json()) as { data: { balance: number } }
    ).data.balance;
    assert.equal(balanceAfter, balanceBefore, 'nothing is charged for a released hold');
  });
});
