import type { Endpoint, ModelInfo } from '../catalog/types.ts';

/** One (model, endpoint) pair the executor may try, in plan order. */
export interface PlannedAttempt {
  model: ModelInfo;
  endpoint: Endpoint;
}

/** What happened to one attempt, for the generation record. */
export interface AttemptRecord {
  model: string;
  provider: string;
  endpoint: string;
  /** Upstream HTTP status, or 0 when none was received. */
  status: number;
  errorCode: string | null;
  ms: number;
}
