// What one step of the records' pruning is asked and answers (the job: server/records-retention.ts;
// the engines': sqlite/record-pruner.ts, postgres/postgres-record-pruner.ts).

/** Records of `accountId` older than `beforeMs` (Unix ms) are to go. */
export interface PruneCutoff {
  accountId: string;
  beforeMs: number;
}

export interface PruneStep {
  /** Rows deleted by this step. */
  deleted: number;
  /** The first cutoff not finished yet (cutoffs.length: all done). */
  next: number;
  /** How long the step held the database's write lock, ms (from BEGIN IMMEDIATE's return to COMMIT's). */
  ms: number;
}
