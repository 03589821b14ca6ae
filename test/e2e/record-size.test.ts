import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, SIM_ONLY, startTestGateway } from '../support/test-gateway.ts';
import { createPostgresPool } from '../../src/store/postgres/postgres-pool.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { postgresSizePerRecord, sqliteSizePerRecord } from '../../bench/lib/record-size.ts';

// A generation record costs at most 1,000 bytes of database (its table, indexes and names),
// measured as the files grow: for requests served by a gateway, and for a busy gateway's mix
// of records (bench/lib/record-size.ts, the figures of bench/records-size.ts) on both engines.

const BOUND = 1000;

describe('bytes per generation record', () => {
  after(async () => {
    if (postgresUnavailable() === null) await stopPostgres();
  });

  test('requests served by a gateway (SQLite): the records table and its indexes grow by at most 1,000 bytes a request', async (t) => {
    const gw = await startTestGateway({ yaml: `${SIM_ONLY}tiers:\n  tier2:\n    requests_per_minute: 100000\n` });
    try {
      const size = () => {
        gw.db.exec('PRAGMA wal_checkpoint(PASSIVE)');
        return Number(
          (
            gw.db
              .prepare(
                `SELECT sum(pgsize) AS s FROM dbstat WHERE name IN
          (SELECT name FROM sqlite_schema WHERE tbl_name IN ('generation_records', 'record_names'))`,
              )
              .get() as { s: number }
          ).s,
        );
      };
      const ask = (i: number) =>
        postJson(
          `${gw.baseUrl}/chat/completions`,
          { model: 'switchyard/sim-pro', max_tokens: 30, user: `user-${i % 7}`, messages: [{ role: 'user', content: `question ${i}` }] },
          { authorization: `Bearer ${gw.key}`, 'x-title': 'Size Test App' },
        );
      for (let i = 0; i < 40; i++) assert.equal((await ask(i)).status, 200); // the first pages of each b-tree
      await gw.flush();
      await gw.services.writer?.exec('PRAGMA wal_checkpoint(PASSIVE)');
      const before = size();
      const N = 600;
      for (let i = 0; i < N; i += 20) {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, j) => ask(i + j)));
        assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
      }
      await gw.flush();
      await gw.services.writer?.exec('PRAGMA wal_checkpoint(PASSIVE)');
      const perRecord = (size() - before) / N;
      t.diagnostic(`${perRecord.toFixed(0)} bytes per record`);
      assert.ok(perRecord > 0 && perRecord <= BOUND, `${perRecord.toFixed(0)} bytes per record`);
    } finally {
      await gw.close();
    }
  });

  test("a busy gateway's mix of records, SQLite: at most 1,000 bytes each (the old layout: more)", () => {
    const compact = sqliteSizePerRecord('compact', 5000, 1000);
    assert.ok(compact.record <= BOUND, `${compact.record.toFixed(0)} bytes per record`);
    const legacy = sqliteSizePerRecord('legacy', 5000, 1000);
    assert.ok(legacy.record > compact.record * 2, `legacy ${legacy.record.toFixed(0)} vs compact ${compact.record.toFixed(0)}`);
  });

  test('the same mix on Postgres: at most 1,000 bytes each', { skip: postgresUnavailable() ?? false }, async () => {
    const pool = createPostgresPool({ url: await createTestDatabase(), max: 2 });
    try {
      const compact = await postgresSizePerRecord(pool, 'compact', 5000, 1000);
      assert.ok(compact.record <= BOUND, `${compact.record.toFixed(0)} bytes per record`);
    } finally {
      await pool.end();
    }
  });
});
