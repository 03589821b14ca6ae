/** The outcome of the last configuration reload, as the gateway writes it (store-contract.ts's ReloadStatusRepository). */

export interface ReloadStatus {
  pid: number;
  attempt: number;
  /** The config generation in force after the attempt. */
  generation: number;
  ok: boolean;
  error: string | null;
  at: string;
}
