import { statSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { configureConnection } from '../open-database.ts';
import type { CheckpointerData, CheckpointStats, FromCheckpointer, ToCheckpointer } from './checkpointer-protocol.ts';

// The WAL checkpointer thread: its own connection, on which the WAL is checkpointed so that
// no settlement's COMMIT pays for it (every connection of the gateway has
// wal_autocheckpoint = 0) and the writer thread is never busy with it.
//
// Every `everyMs` a PASSIVE checkpoint copies the WAL's frames into the database file
// without taking the write lock (commits go on meanwhile). It is repeated at once (up to 4
// passes) while commits add frames during it: once a pass finds nothing new, the writer's
// next transaction starts the WAL over from its beginning, and the file stays at about one
// period's writes.
//
// Under a steady load commits land during every pass, and the WAL is never quite caught up:
// when the -wal file has grown past `walLimitBytes`, a RESTART checkpoint makes the writer's
// next transaction start it over, and that commit cuts the file back to the bound (the
// writer's journal_size_limit). RESTART takes the write lock, so this connection's busy
// timeout is 1 ms: it waits at most about that for the writer's transaction or a reader and
// otherwise gives up until the next round rather than hold commits back; holding the lock,
// it has only the frames written since the PASSIVE pass left to copy (measured: 0.01–2 ms).
// Not TRUNCATE: emptying the file from this connection would change the writer connection's
// data_version, read as another process's change (the caches dropped).
//
// A thread costs some 15 MB of memory: once `idleRounds` rounds in a row found everything
// copied and next to nothing new, it ends (exit code 0); the main thread starts a new one
// with the next settlement batch, or after a minute of the serve lease's renewals alone
// (sqlite-writer.ts, wal-checkpointer.ts `wake`).
//
// The writer thread asks for a round at once when a commit leaves the WAL past the bound
// (through `walSignal`, shared memory: no hop through the main thread's event loop), so the
// bound does not wait for the timer.

const port = parentPort!;
const data = workerData as CheckpointerData;
const walPath = `${data.path}-wal`;
const db = new DatabaseSync(data.path);
configureConnection(db, { autoCheckpoint: false });
db.exec('PRAGMA busy_timeout = 1');
const passive: StatementSync = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart: StatementSync = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const stats: CheckpointStats = { passive: 0, restart: 0, restartBusy: 0, failed: 0, maxWalBytes: 0 };
const post = (m: FromCheckpointer): void => port.postMessage(m);

interface Outcome {
  busy: number;
  log: number;
  checkpointed: number;
}

function walBytes(): number {
  try {
    return statSync(walPath).size;
  } catch {
    return 0; // No WAL file (yet, or after the last connection closed).
  }
}

/** At most this many frames written in a round still count as a quiet database. */
const QUIET_FRAMES = 16;
let lastFrames = 0;
let quietRounds = 0;

function round(): void {
  try {
    const size = walBytes();
    if (size > stats.maxWalBytes) stats.maxWalBytes = size;
    let frames = -1;
    let r: Outcome = { busy: 0, log: -1, checkpointed: -1 };
    for (let i = 0; i < 4; i++) {
      r = passive.get() as unknown as Outcome;
      stats.passive++;
      // Caught up with a WAL no commit added to during the pass (the writer's next transaction
      // starts it over), or stopped short of its end by a reader's snapshot: done until the next round.
      if (r.log === frames || r.checkpointed < r.log) break;
      // Commits added frames while this pass copied the others: copy them too (fewer each time).
      frames = r.log;
    }
    // All copied, and next to nothing written since the last round (the serve lease's renewal
    // is a frame or two a second; the WAL may have started over meanwhile): a quiet database.
    const added = r.log >= lastFrames ? r.log - lastFrames : r.log;
    quietRounds = added <= QUIET_FRAMES && r.checkpointed >= r.log ? quietRounds + 1 : 0;
    lastFrames = r.log;
    if (walBytes() > data.walLimitBytes) {
      stats.restart++;
      const r = restart.get() as unknown as Outcome;
      if (r.busy !== 0) stats.restartBusy++;
    }
  } catch {
    // SQLITE_BUSY past the 1 ms wait, or a database that refuses writes: retried at the next round;
    // a refusal is the settlements' failure to report.
    stats.failed++;
  }
}

function end(): never {
  clearInterval(timer);
  round();
  db.close();
  process.exit(0);
}

const timer = setInterval(() => {
  round();
  if (quietRounds >= data.idleRounds) end();
}, data.everyMs);

/** A round each time the writer signals (nudges that come during a round make one more). */
function listen(): void {
  const seen = Atomics.load(data.walSignal, 0);
  const wait = Atomics.waitAsync(data.walSignal, 0, seen);
  const next = (): void => {
    round();
    listen();
  };
  if (wait.async) void wait.value.then(next);
  else setImmediate(next);
}
listen();

port.on('message', (m: ToCheckpointer) => {
  switch (m.op) {
    case 'now':
      round();
      if (m.id !== undefined) post({ op: 'done', id: m.id });
      return;
    case 'stats':
      post({ op: 'stats', id: m.id, stats: { ...stats } });
      return;
    case 'close':
      post({ op: 'done', id: m.id });
      end();
  }
});
