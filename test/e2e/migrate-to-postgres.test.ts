import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DatabaseSync } from 'node:sqlite';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { postJson, PRICED_SIM, startTestGateway } from '../support/test-gateway.ts';
import { COPIED_TABLES } from '../../src/store/copy-to-postgres.ts';

// `switchyard migrate --from sqlite:PATH --to postgres://…` on a database a real gateway
// wrote (accounts, keys, grants and adjustments through the admin API, settled generations,
// rollups, the audit log, a dashboard session), into a real Postgres; then the refusals and
// the verification catching a tampered target.

const skip = postgresUnavailable() ?? false;
after(async () => {
  await stopPostgres();
});

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;

function migrate(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, 'migrate', ...args], {
    encoding: 'utf8',
    env: { ...process.env, SWITCHYARD_CONFIG: '', DATABASE_URL: '' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A SQLite database written by a real gateway, copied out once the gateway stopped. */
async function filledDatabase(): Promise<string> {
  const gw = await startTestGateway({ credits: '25', yaml: PRICED_SIM });
  try {
    const auth = { authorization: `Bearer ${gw.key}` };
    for (let i = 0; i < 3; i++) {
      const r = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/paid-sim', messages: [{ role: 'user', content: `hello ${i}` }] },
        auth,
      );
      assert.equal(r.status, 200, r.text);
    }
    // A refusal: counted in refusal_counts, which is copied too.
    assert.equal(
      (await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/no-such', messages: [{ role: 'user', content: 'x' }] }, auth))
        .status,
      400,
    );
    const other = await gw.services.accountService.createAccount({ name: 'second', creditsUsd: '3.5' });
    await gw.services.accountService.createKey({ accountId: other.id, name: 'limited', limitUsd: '1' });
    const admin = await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'ops', admin: true });
    const adminAuth = { authorization: `Bearer ${admin.key}` };
    for (const body of [
      { kind: 'grant', amount: '10', reason: 'top-up' },
      { kind: 'adjustment', amount: '-0.000000123', reason: 'correction' },
    ]) {
      const r = await postJson(`${gw.origin}/api/v1/admin/accounts/${other.id}/credits`, body, adminAuth);
      assert.equal(r.status, 201, r.text);
    }
    await gw.services.sessions.create(admin.record.hash, 60_000);
    await gw.flush();
    const charges = gw.db.prepare("SELECT count(*) AS n FROM ledger WHERE kind = 'charge'").get() as { n: number };
    assert.equal(charges.n, 3, 'three settled, charged generations');
  } finally {
    await gw.app.close();
    await gw.services.close();
  }
  // The gateway stopped (its serve lease released): the database as an operator would migrate it.
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-migrate-'));
  cpSync(gw.dir, dir, { recursive: true });
  rmSync(gw.dir, { recursive: true, force: true });
  return join(dir, 'switchyard.db');
}

function sqliteBalances(path: string): Map<string, bigint> {
  const db = new DatabaseSync(path, { readOnly: true });
  const s = db.prepare('SELECT id, balance_nanos FROM accounts');
  s.setReadBigInts(true);
  const out = new Map((s.all() as Array<{ id: string; balance_nanos: bigint }>).map((r) => [r.id, r.balance_nanos]));
  db.close();
  return out;
}

test(
  "migrate copies a gateway's SQLite database into Postgres and verifies every balance; a second run is refused; a tampered target fails the verification",
  { skip },
  async () => {
    const path = await filledDatabase();
    const url = await createTestDatabase();

    const first = migrate('--from', `sqlite:${path}`, '--to', url, '--json');
    assert.equal(first.code, 0, first.err + first.out);
    const summary = JSON.parse(first.out);
    assert.equal(summary.ok, true);
    assert.deepEqual(summary.mismatches, []);
    assert.equal(summary.copied.generation_records, 3);
    assert.equal(summary.copied.accounts, 2);
    assert.equal(summary.copied.api_keys, 3);
    assert.equal(summary.copied.admin_actions, 2);
    assert.equal(summary.copied.dashboard_sessions, 1);
    assert.equal(summary.copied.refusal_counts, 1, 'the refused request: counted, not a generation record');
    assert.ok(summary.copied.usage_daily >= 1);
    assert.equal(summary.verified.accounts, 2);
    assert.ok(!first.out.includes(url) && !first.err.includes(url), 'the URL (with its password) is never printed');

    // The audit log's hash chain arrives whole: it verifies on Postgres.
    const audit = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, SWITCHYARD_CONFIG: '', DATABASE_URL: url, REDIS_URL: 'redis://127.0.0.1:1', LOCAL_KEY: 'k' },
    }); // the CLI needs Redis only to announce changes: verify makes none
    assert.equal(audit.status, 0, audit.stdout + audit.stderr);
    assert.deepEqual(JSON.parse(audit.stdout), { ok: true, checked: 2 });

    // Postgres has the balances SQLite has, to the nano-USD, and each equals its ledger.
    const client = new pg.Client(url);
    await client.connect();
    try {
      const rows = (
        await client.query(
          'SELECT a.id, a.balance_nanos, (SELECT sum(amount_nanos) FROM ledger l WHERE l.account_id = a.id) AS ledger FROM accounts a',
        )
      ).rows;
      const expected = sqliteBalances(path);
      assert.equal(rows.length, expected.size);
      for (const r of rows) {
        assert.equal(BigInt(r.balance_nanos), expected.get(r.id), r.id);
        assert.equal(BigInt(r.ledger), BigInt(r.balance_nanos), `${r.id}: balance = sum of its ledger`);
      }
      // New ledger rows continue after the copied ids.
      const maxId = BigInt((await client.query('SELECT max(id) AS m FROM ledger')).rows[0].m);
      const inserted = await client.query(
        `INSERT INTO ledger (account_id, kind, amount_nanos, created_at) VALUES ($1, 'credit', 1, 'now') RETURNING id`,
        [rows[0].id],
      );
      assert.equal(BigInt(inserted.rows[0].id), maxId + 1n);
      await client.query('DELETE FROM ledger WHERE id = $1', [inserted.rows[0].id]);

      // A second run finds the target filled and refuses, changing nothing.
      const again = migrate('--from', `sqlite:${path}`, '--to', url);
      assert.equal(again.code, 1, again.err);
      assert.match(again.err, /the target database is not empty \(rows in accounts, .*\); migrate into an empty database, or pass --force/);

      // Tampering: one nano-USD off one charge.
      await client.query("UPDATE ledger SET amount_nanos = amount_nanos - 1 WHERE id = (SELECT min(id) FROM ledger WHERE kind = 'charge')");
      const check = migrate('--from', `sqlite:${path}`, '--to', url, '--verify-only');
      assert.equal(check.code, 1, check.out + check.err);
      assert.match(check.out, /VERIFICATION FAILED: 3 difference\(s\)/);
      assert.match(check.out, /account acct_\S+ charges \(nano-USD\): sqlite \d+, postgres \d+/);
      assert.match(check.out, /account acct_\S+ credits \+ adjustments − charges \(nano-USD\)/);
      assert.match(check.out, /content of ledger: the rows differ/);
      await client.query("UPDATE ledger SET amount_nanos = amount_nanos + 1 WHERE id = (SELECT min(id) FROM ledger WHERE kind = 'charge')");
      assert.equal(migrate('--from', `sqlite:${path}`, '--to', url, '--verify-only').code, 0, 'put back: verified again');
      // A change that moves no money: one generation's model name.
      await client.query('UPDATE generation_records SET latency_ms = latency_ms + 1 WHERE id = (SELECT min(id) FROM generation_records)');
      const renamed = migrate('--from', `sqlite:${path}`, '--to', url, '--verify-only');
      assert.equal(renamed.code, 1);
      assert.match(renamed.out, /VERIFICATION FAILED: 1 difference\(s\)[^]*content of generation_records: the rows differ/);
      // A deleted generation record: the row counts disagree.
      await client.query('DELETE FROM generation_records WHERE id = (SELECT min(id) FROM generation_records)');
      assert.match(
        migrate('--from', `sqlite:${path}`, '--to', url, '--verify-only').out,
        /rows in generation_records: sqlite 3, postgres 2[^]*content of generation_records: the rows differ/,
      );

      // --force replaces the target; the verification passes again.
      const forced = migrate('--from', `sqlite:${path}`, '--to', url, '--force');
      assert.equal(forced.code, 0, forced.err + forced.out);
      assert.match(
        forced.out,
        new RegExp(
          `verified: the row counts and contents of ${COPIED_TABLES.length} tables, and for 2 accounts and 3 keys every balance, ledger sum and key usage, match exactly`,
        ),
      );
    } finally {
      await client.end();
    }
  },
);

test('migrate refuses a database a gateway is serving, and a source that is not SQLite', { skip }, async () => {
  const gw = await startTestGateway();
  try {
    const r = migrate('--from', `sqlite:${join(gw.dir, 'switchyard.db')}`, '--to', 'postgres://nobody@127.0.0.1:1/none');
    assert.equal(r.code, 1);
    assert.match(r.err, /a gateway \(pid \d+ on .*\) is serving .*: stop it first/);
  } finally {
    await gw.close();
  }
  const bad = migrate('--from', 'postgres://x@y/z', '--to', 'postgres://x@y/z');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--from: expected sqlite:PATH/);
});
