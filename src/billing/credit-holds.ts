import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { PromptTokenBound } from '../canonical/prompt-token-bound.ts';
import type { Nanos } from '../money/money.ts';

/**
 * Credit holds, as the pipeline sees them: the worst case held before the upstream call,
 * the charge fixed (overshoot rule) and the hold released when the answer is done, the
 * charge counted as in flight until the settlement commits. Two implementations:
 * CreditReservations (one process on SQLite: synchronous, answers without a promise) and
 * FleetCreditHolds (every instance of a fleet, in Redis: each call a promise, rejecting
 * with SharedStateUnavailable when Redis cannot answer). Callers `await` either.
 */
export interface CreditHolds {
  /** Holds the request's worst-case cost; returns the amount held, or throws 402 (or 401). */
  reserve(
    id: string,
    auth: AuthContext,
    req: CanonicalRequest,
    plan: readonly PlannedAttempt[],
    prompt: PromptTokenBound,
  ): Nanos | Promise<Nanos>;
  /**
   * The request ended having cost `costNanos` (0: failed): applies the overshoot rule,
   * releases the hold, and counts what is returned as settling until its settlement
   * commits. Returns the amount to charge. Never rejects for an outage: an answer already
   * produced is charged (at most its hold) and the shared state catches up later.
   */
  finish(id: string, accountId: string, keyHash: string, heldNanos: Nanos, costNanos: Nanos): Nanos | Promise<Nanos>;
  /**
   * Something about this key, or this account (`keyHash` undefined), or everything (both
   * undefined) changed in the database: read it afresh next time, on every instance.
   */
  forget(keyHash?: string, accountId?: string): void;
  /** Releases holds whose requests can no longer settle; `all` at the start of the only process. Returns how many. */
  releaseStale(all: boolean): number | Promise<number>;
  /** What is held or settling for an account right now (the key status record). */
  heldFor(accountId: string): Nanos | Promise<Nanos>;
  /** Holds taken by this instance and not finished yet (a gauge). */
  readonly outstanding: number;
  /**
   * Whether a hold is also written as a row of the database's `reservations` table (which a
   * settlement then removes): CreditReservations, yes; FleetCreditHolds on Postgres, yes
   * (the stale-hold sweep records a dead instance's requests as interrupted), and no where
   * only Redis knows its holds.
   */
  readonly holdRows: boolean;
}
