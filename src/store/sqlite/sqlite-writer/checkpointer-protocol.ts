// The messages between the gateway's main thread and its WAL checkpointer thread
// (checkpointer-thread.ts).

/** What the checkpointer thread is started with. */
export interface CheckpointerData {
  path: string;
  /** Period of the PASSIVE checkpoints. */
  everyMs: number;
  /** The WAL's bound in bytes: past it, a RESTART checkpoint (waiting at most ~1 ms) has the writer start the file over. */
  walLimitBytes: number;
  /** After this many rounds in a row found no new frame, the thread checkpoints one last time and ends (started again by the next write). */
  idleRounds: number;
  /** Shared with the writer thread, which adds 1 to element 0 (and notifies) when a commit left the WAL past its bound. */
  walSignal: Int32Array;
}

/** What the checkpointer counted since it started (diagnostics and tests). */
export interface CheckpointStats {
  /** PASSIVE checkpoints run (never blocks the writer). */
  passive: number;
  /** RESTART checkpoints tried because the WAL had grown past its bound, and those that could not finish within their ~1 ms wait. */
  restart: number;
  restartBusy: number;
  /** Checkpoints that failed with an error (a database that refuses writes: the settlements report it). */
  failed: number;
  /** The largest WAL file size seen at the start of a round, in bytes. */
  maxWalBytes: number;
}

export type ToCheckpointer = { op: 'now'; id?: number } | { op: 'stats'; id: number } | { op: 'close'; id: number };

export type FromCheckpointer = { op: 'done'; id: number } | { op: 'stats'; id: number; stats: CheckpointStats };
