// A credential pool's use counted by a fleet (credential-pool.ts): with Redis configured,
// every gateway instance claims a credential through it, so a credential's rpm and tpm
// budgets and the cool-downs an upstream asked for hold for the fleet, not for each
// instance. Implemented in shared/redis/redis-credential-use.ts.

/** A credential a pick may claim, with its own budgets (null: unbounded). */
export interface CredentialCandidate {
  label: string;
  rpm: number | null;
  tpm: number | null;
}

export interface SharedCredentialUse {
  /**
   * The first of `candidates` (in the order given: the weighted draw's) that no instance has
   * cooled down and whose requests and tokens over the last minute, fleet-wide, leave room;
   * counted as used, atomically. Null when none has room.
   */
  claim(poolId: string, candidates: readonly CredentialCandidate[], now: number): Promise<string | null>;
  /** The credential rests until `until` (epoch ms) on every instance. */
  coolDown(poolId: string, label: string, until: number, now: number): Promise<void>;
  /** Tokens an answer used, against the credential's tpm on every instance. */
  addTokens(poolId: string, label: string, tokens: number, now: number): Promise<void>;
}
