// A credential pool's state shared by a fleet (credential-pool.ts): with Redis configured,
// every gateway instance claims a credential through it, so a credential's rpm and tpm
// budgets, the cool-downs an upstream asked for (429 `retry-after`), the headroom it said
// was spent (`x-ratelimit-remaining-*: 0` until its reset) and its removal after a 401/403
// hold for the fleet, not for each instance. The claim is the one round trip a pick makes;
// it also answers what it passed over, so each instance mirrors the fleet's marks (its
// admin API shows them) without another call. Writes happen only when something changed
// (a 429, a 401/403, headroom turning to 0). Implemented in shared/redis/redis-credential-use.ts.

/** A credential a pick may claim, with its own budgets (null: unbounded). */
export interface CredentialCandidate {
  label: string;
  /** A fingerprint of its key (never the key): a removal is of this key, so a replaced key starts afresh. */
  fingerprint: string;
  rpm: number | null;
  tpm: number | null;
}

/** What the fleet holds against a credential a claim passed over. */
export type CredentialMark =
  | { label: string; kind: 'removed'; reason: string }
  | { label: string; kind: 'cooling'; until: number }
  | { label: string; kind: 'spent'; until: number };

export interface CredentialClaim {
  /** The credential claimed, or null when none has room. */
  label: string | null;
  /** The candidates passed over for a fleet mark (removed, cooling, spent): for this instance to mirror. */
  marks: CredentialMark[];
}

export interface SharedCredentialUse {
  /**
   * The first of `candidates` (in the order given: the weighted draw's) that no instance has
   * removed, cooled down or found spent, and whose requests and tokens over the last minute,
   * fleet-wide, leave room; counted as used, atomically.
   */
  claim(poolId: string, candidates: readonly CredentialCandidate[], now: number): Promise<CredentialClaim>;
  /** The credential rests until `until` (epoch ms) on every instance. */
  coolDown(poolId: string, label: string, until: number, now: number): Promise<void>;
  /** The upstream said the credential has no headroom left until `until` (epoch ms): passed over on every instance. */
  spent(poolId: string, label: string, until: number, now: number): Promise<void>;
  /** A 401/403: the credential (this key of it) is out on every instance. */
  remove(poolId: string, label: string, fingerprint: string, reason: string): Promise<void>;
  /** Tokens an answer used, against the credential's tpm on every instance. */
  addTokens(poolId: string, label: string, tokens: number, now: number): Promise<void>;
}
