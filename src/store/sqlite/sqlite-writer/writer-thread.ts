import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { ExternalChangeWatcher } from '../external-change-watcher.ts';
import { LedgerStore } from '../ledger-store.ts';
import { pruneStep } from '../record-pruner.ts';
import { configureConnection } from '../open-database.ts';
import { compactHeap } from '../../../runtime/compact-heap.ts';
import { renewLease } from '../serve-lock.ts';
import { toWire, type FromWriter, type LeaseTerms, type ToWriter, type WriterData } from './writer-protocol.ts';

// The SQLite writer thread: its own connection to the gateway's database, on which the
// settlement batches are committed and the serve lease renewed, so that no COMMIT or busy
// wait runs on the main thread's event loop. It never checkpoints the WAL (wal_autocheckpoint
// = 0: no COMMIT of a settlement copies the WAL into the database): the checkpointer thread
// does, on a connection of its own (checkpointer-thread.ts); this one only signals it when a
// commit left the WAL past its bound (through shared memory, not via the main thread), so
// that the checkpointer need not wait for its timer. It also watches data_version, which
// on this connection changes whenever any other connection commits (the operator CLI, and
// the main thread's own writes): its own commits never change it, so the settlements
// written here do not drop the main thread's caches.

const port = parentPort!;
const data = workerData as WriterData;
const db = new DatabaseSync(data.path);
configureConnection(db, { autoCheckpoint: false });
// When the WAL starts over after a checkpoint, the first commit cuts a file grown past the bound back to it.
db.exec(`PRAGMA journal_size_limit = ${Math.trunc(data.walLimitBytes)}`);
const ledger = new LedgerStore(db);
const post = (m: FromWriter): void => port.postMessage(m);

const walPath = `${data.path}-wal`;
/** After a commit: one that left the WAL past its bound asks the checkpointer for a round now. */
function checkWalSize(): void {
  let size = 0;
  try {
    size = statSync(walPath).size;
  } catch {
    // No WAL file: nothing to bound.
  }
  if (size <= data.walLimitBytes) return;
  Atomics.add(data.walSignal, 0, 1);
  Atomics.notify(data.walSignal, 0);
}
const watcher = new ExternalChangeWatcher(db);
watcher.onChange(() => post({ op: 'external-change' }));
setInterval(() => {
  try {
    watcher.check();
  } catch {
    // A database that cannot be read now is the settlements' failure to report.
  }
}, data.changeCheckMs);

let leaseTimer: NodeJS.Timeout | null = null;
function renewEvery(lease: LeaseTerms): void {
  if (leaseTimer !== null) clearInterval(leaseTimer);
  const renew = (): void => {
    const renewal = renewLease(db, lease.token, lease.ttlMs, Date.now());
    // Another holder took it: the main thread stops serving; nothing more to renew.
    if ('changes' in renewal && renewal.changes === 0 && leaseTimer !== null) clearInterval(leaseTimer);
    post({ op: 'lease', renewal });
  };
  leaseTimer = setInterval(renew, lease.renewMs);
  renew();
}

port.on('message', (m: ToWriter) => {
  switch (m.op) {
    case 'settle':
      try {
        ledger.settle(m.holds, m.batch, m.refusals, m.replay);
        post({ op: 'done', id: m.id });
        checkWalSize();
      } catch (err) {
        post({ op: 'failed', id: m.id, error: toWire(err) });
      }
      return;
    case 'exec':
      try {
        db.exec(m.sql);
        post({ op: 'done', id: m.id });
      } catch (err) {
        post({ op: 'failed', id: m.id, error: toWire(err) });
      }
      return;
    case 'prune':
      try {
        post({ op: 'done', id: m.id, step: pruneStep(db, m.cutoffs, m.start, m.limit) });
      } catch (err) {
        post({ op: 'failed', id: m.id, error: toWire(err) });
      }
      return;
    case 'check-changes':
      // A change seen now is posted before the answer, so it is heard of first.
      try {
        watcher.check();
      } catch {
        // As at the timer.
      }
      post({ op: 'done', id: m.id });
      return;
    case 'lease':
      renewEvery(m.lease);
      return;
    case 'compact-heap':
      compactHeap();
      post({ op: 'done', id: m.id });
      return;
    case 'close':
      // Everything posted before this message has been written (messages arrive in order).
      if (leaseTimer !== null) clearInterval(leaseTimer);
      // The checkpointer, closed after this thread, checkpoints what was written.
      db.close();
      post({ op: 'done', id: m.id });
      process.exit(0);
  }
});

post({ op: 'ready' });
