import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { ExternalChangeWatcher } from '../external-change-watcher.ts';
import { LedgerStore } from '../ledger-store.ts';
import { configureConnection, startWalCheckpoints } from '../open-database.ts';
import { compactHeap } from '../../runtime/compact-heap.ts';
import { renewLease } from '../serve-lock.ts';
import { toWire, type FromWriter, type LeaseTerms, type ToWriter, type WriterData } from './writer-protocol.ts';

// The SQLite writer thread: its own connection to the gateway's database, on which the
// settlement batches are committed, the WAL is checkpointed and the serve lease renewed,
// so that no COMMIT, checkpoint or busy wait runs on the main thread's event loop. It also
// watches data_version, which on this connection changes whenever any other connection
// commits (the operator CLI, and the main thread's own writes): its own commits never
// change it, so the settlements written here do not drop the main thread's caches.

const port = parentPort!;
const data = workerData as WriterData;
const db = new DatabaseSync(data.path);
configureConnection(db);
const ledger = new LedgerStore(db);
const post = (m: FromWriter): void => port.postMessage(m);

startWalCheckpoints(db, data.checkpointMs);
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
      try {
        db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      } catch {
        // The next start checkpoints.
      }
      db.close();
      post({ op: 'done', id: m.id });
      process.exit(0);
  }
});

post({ op: 'ready' });
