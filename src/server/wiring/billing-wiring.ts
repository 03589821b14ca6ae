import type { CreditHolds } from '../../billing/credit-holds.ts';
import { CreditReservations } from '../../billing/credit-reservations.ts';
import { SettlementQueue } from '../../billing/settlement-queue.ts';
import type { AccountRepository } from '../../store/store-contract.ts';
import type { EngineParts } from '../open-stores.ts';
import type { Log } from './service-options.ts';

// Money: the settlement queue (where settlements and refusals are batched and written) and
// the credit holds (in this process over SQLite, or in Redis shared by a fleet), with the
// sweep of holds whose requests died.

/**
 * The queue writes its batches where the engine says (the SQLite writer thread, or Postgres).
 * `holdJournalMs` (timeouts.hold_journal_ms): how long hold rows may wait for a batch, on
 * either engine (0: each admission waits for its own row's commit).
 */
export function wireSettlements(engine: Pick<EngineParts, 'settleOn'>, log: Log, holdJournalMs: number): SettlementQueue {
  return new SettlementQueue(engine.settleOn, { log, holdJournalMs });
}

/** Credit holds: in this process (SQLite), or in Redis shared by a fleet. A hold may outlive its request by `holdMs`. */
export function wireCreditHolds(
  engine: Pick<EngineParts, 'fleet' | 'holdStore' | 'releaseStaleRows'>,
  settlements: SettlementQueue,
  accounts: Pick<AccountRepository, 'getKey'>,
  holdMs: number,
  now: (() => number) | undefined,
): CreditHolds {
  const { fleet } = engine;
  if (fleet === null) {
    if (engine.holdStore === null) throw new Error('credit holds: SQLite without Redis has an in-process hold store');
    return new CreditReservations(engine.holdStore, settlements, { holdMs, ...(now === undefined ? {} : { now }) });
  }
  return fleet.creditHolds(
    settlements,
    async (keyHash) => (await accounts.getKey(keyHash))?.accountId,
    // On Postgres, hold rows too: the requests of an instance that died are recorded as interrupted.
    engine.releaseStaleRows === null ? undefined : { holdMs, write: (h) => settlements.pushHold(h), releaseStale: engine.releaseStaleRows },
  );
}

/**
 * Releases the holds a dead process left (SQLite: one gateway process, so every hold at
 * start-up), then sweeps stale holds every `everyMs` (a fleet: every instance reconciles the
 * holds of instances that died, each step atomic). Returns the sweep's stop.
 */
export function startHoldSweep(
  reservations: CreditHolds,
  settlements: SettlementQueue,
  inProcess: boolean,
  everyMs: number,
  log: Log,
): () => void {
  if (inProcess) {
    const released = reservations.releaseStale(true) as number;
    if (released > 0) log(`released ${released} credit hold(s) left by requests interrupted at the last shutdown`);
  }
  const sweep = setInterval(() => {
    // Holds of requests whose settlements wait in memory (writes refused) are not stale.
    if (!settlements.failing) void sweepStaleHolds(reservations, log);
  }, everyMs);
  sweep.unref();
  return () => clearInterval(sweep);
}

/** The periodic sweep: holds of requests that outlived their deadline (a write failure must not crash the process). */
async function sweepStaleHolds(reservations: CreditHolds, log: Log): Promise<void> {
  try {
    const released = await reservations.releaseStale(false);
    if (released > 0) log(`released ${released} stale credit hold(s)`);
  } catch (err) {
    log(`stale-hold sweep failed: ${(err as Error).message}`);
  }
}
