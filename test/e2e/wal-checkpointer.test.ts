import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The WAL is checkpointed by a thread of its own, on its own connection
// (src/store/sqlite/sqlite-writer/checkpointer-thread.ts): no settlement's COMMIT copies the WAL into
// the database (every connection of the gateway has wal_autocheckpoint = 0), and the -wal
// file stays within its bound under a sustained load, because a commit that leaves it past
// the bound has the checkpointer start it over at once, without waiting for its timer; and
// the checkpointer's work is not mistaken for another process's change.

const chat = { model: 'switchyard/sim-fast', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] };
const HOUR = 3_600_000;
/** What one renewal of the serve lease (an UPDATE of one row, on the writer thread, every second) may add to the WAL. */
const RENEWAL_FRAMES = 4;
// The simulated provider at full speed, and the test account's tier without a per-minute limit in the way of the load.
const YAML = `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
tiers:
  tier2:
    requests_per_minute: 1000000000
    requests_per_day: null
    account_requests_per_minute: null
`;

/**
 * The WAL's frame count and how many of them some connection has checkpointed, as SQLite
 * keeps them in the -shm file (the WAL index: its header's mxFrame at byte 16, the
 * checkpoint information's nBackfill at byte 96, in the machine's byte order).
 */
function walIndex(dbPath: string): { mxFrame: number; nBackfill: number } {
  const shm = readFileSync(`${dbPath}-shm`);
  const u32 = (at: number): number => (endianness() === 'LE' ? shm.readUInt32LE(at) : shm.readUInt32BE(at));
  return { mxFrame: u32(16), nBackfill: u32(96) };
}

function walBytes(dbPath: string): number {
  try {
    return statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}

/** `total` chat requests, `parallel` at a time; `after` runs after each answer. */
async function load(gw: TestGateway, total: number, parallel: number, afterEach: () => void = () => {}): Promise<void> {
  let sent = 0;
  const auth = { authorization: `Bearer ${gw.key}` };
  const lane = async (): Promise<void> => {
    while (sent < total) {
      sent++;
      const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
      assert.equal(res.status, 200, res.text);
      afterEach();
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
}

describe('WAL checkpoints', () => {
  describe("with the checkpointer's timer an hour away and no bound reached", () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ yaml: YAML, credits: '1000', writer: { checkpointMs: HOUR, walLimitBytes: 1024 ** 3 } });
    });
    after(async () => gw.close());

    test('no COMMIT checkpoints, however long the WAL grows; the checkpointer does when asked', async () => {
      const dbPath = gw.services.inForce.config.database.path;
      // The main thread's connection (the admin API's writes) does not checkpoint either.
      assert.equal((gw.db.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint, 0);
      // Past SQLite's default threshold (1,000 frames) and the 10,000 this gateway used to checkpoint at inside a COMMIT.
      let requests = 0;
      while (walIndex(dbPath).mxFrame <= 12_000) {
        assert.ok(requests < 6_000, `the WAL should have passed 12,000 frames by now: ${JSON.stringify(walIndex(dbPath))}`);
        await load(gw, 100, 4);
        await gw.flush();
        requests += 100;
      }
      const grown = walIndex(dbPath);
      assert.equal(grown.nBackfill, 0, `no frame of ${grown.mxFrame} checkpointed by any commit`);
      assert.equal((await gw.services.writer!.checkpointStats()).passive, 0);

      await gw.services.writer!.checkpointNow();
      const stats = await gw.services.writer!.checkpointStats();
      assert.ok(stats.passive >= 1, JSON.stringify(stats));
      const done = walIndex(dbPath);
      assert.ok(done.nBackfill > 0 && done.nBackfill <= done.mxFrame, `the checkpointer copied the WAL: ${JSON.stringify(done)}`);
      // And what the gateway committed is all there to read.
      const res = await fetch(`${gw.origin}/api/v1/credits`, { headers: { authorization: `Bearer ${gw.key}` } });
      assert.equal(res.status, 200);
    });
  });

  describe('on a gateway that goes quiet', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ yaml: YAML, writer: { checkpointMs: 20, checkpointerIdleMs: 100 } });
    });
    after(async () => gw.close());

    test('the checkpointer thread runs only while there are writes: it ends once all is copied, and the next write starts it', async () => {
      const checkpointer = gw.services.writer!.walCheckpointer;
      const dbPath = gw.services.inForce.config.database.path;
      assert.equal(checkpointer.running, false, 'an idle gateway (no settlement yet) runs no checkpointer');
      const exits: number[] = [];
      let exited = (): void => {};
      checkpointer.onExit((code) => {
        exits.push(code);
        exited();
      });
      await load(gw, 20, 2);
      await gw.flush();
      // (A slow machine may see it end between two answers already: the next one started it again.)
      if (checkpointer.running) await new Promise<void>((resolve) => (exited = resolve));
      assert.ok(exits.length >= 1 && exits.every((c) => c === 0), `it ended by itself once the database was quiet: ${exits.join(', ')}`);
      assert.equal(checkpointer.running, false);
      // Everything written was copied first (but what a lease renewal, on the writer thread, may have written since).
      const quiet = walIndex(dbPath);
      assert.ok(quiet.mxFrame - quiet.nBackfill <= RENEWAL_FRAMES, `everything written was copied first: ${JSON.stringify(quiet)}`);

      await load(gw, 1, 1);
      await gw.flush();
      assert.equal(checkpointer.running, true, 'the next settlement started a new one');
    });
  });

  describe('on a gateway that serves no request', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ yaml: YAML, writer: { checkpointMs: 20, checkpointerIdleMs: 100, checkpointerWakeRenewals: 3 } });
    });
    after(async () => gw.close());

    test("with no settlement, the serve lease's renewals (a commit each) start it now and then, and it copies them", async () => {
      const checkpointer = gw.services.writer!.walCheckpointer;
      const dbPath = gw.services.inForce.config.database.path;
      // No settlement on this gateway: only the renewals, one a second, every 3rd of which wakes it.
      const ended = new Promise<number>((resolve) => checkpointer.onExit(resolve));
      if (!checkpointer.running) await new Promise<void>((resolve) => checkpointer.onStart(resolve));
      assert.equal(await ended, 0, 'it ended by itself once all was copied');
      const after = walIndex(dbPath);
      assert.ok(after.mxFrame - after.nBackfill <= RENEWAL_FRAMES, `the renewals were copied: ${JSON.stringify(after)}`);
    });
  });

  describe("with a 1 MiB bound and the checkpointer's timer an hour away", () => {
    const LIMIT = 1024 * 1024;
    // What the gateway may write while one checkpoint round runs (about 100 answers' WAL frames here).
    const MARGIN = 8 * 1024 * 1024;
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ yaml: YAML, credits: '1000', writer: { checkpointMs: HOUR, walLimitBytes: LIMIT } });
    });
    after(async () => gw.close());

    test("the -wal file never grows past the bound (plus a round's writes) under a sustained load", async () => {
      const dbPath = gw.services.inForce.config.database.path;
      let changes = 0;
      gw.services.writer!.onExternalChange(() => changes++);
      let largest = 0;
      const sample = (): void => {
        largest = Math.max(largest, walBytes(dbPath));
      };
      // About 4 to 5 frames of 4 KiB per answer at 4 in parallel: some 45 MB of WAL in all, five
      // times the bound and margin (with checkpoints inside COMMITs at 10,000 frames, the file grew to 41 MB).
      await load(gw, 2_500, 4, sample);
      await gw.flush();
      sample();
      const stats = await gw.services.writer!.checkpointStats();
      assert.ok(stats.restart >= 3, `the bound was reached, and the WAL started over, again and again: ${JSON.stringify(stats)}`);
      assert.ok(largest <= LIMIT + MARGIN, `largest -wal file ${largest} bytes, bound ${LIMIT} + ${MARGIN}`);
      assert.ok(stats.maxWalBytes <= LIMIT + MARGIN, JSON.stringify(stats));
      // Starting the WAL over is the writer's own doing: no other process's change, no cache dropped.
      await gw.seeCliChanges();
      assert.equal(changes, 0);
    });
  });
});
