import type { ModelInfo } from '../catalog/types.ts';
import type { GatewayError } from '../errors/gateway-error.ts';

/** What happened to one attempt, for the generation record. */
export interface AttemptRecord {
  model: string;
  provider: string;
  endpoint: string;
  /** Upstream HTTP status, or 0 when none was received. */
  status: number;
  errorCode: string | null;
  ms: number;
  /** The label of the pooled credential the attempt carried (`api_keys:`), never its key. */
  credential?: string;
  /** The attempt carried the account's own key (docs/byok.md). */
  byok?: true;
}

/**
 * Whether a model of the plan may be tried now (the request's per-model rate limits):
 * asked as each attempt starts; null for yes, else the refusal, and the executor moves on
 * to the next model. A shared (Redis) limiter answers with a promise, and rejects when it
 * cannot decide: the request then fails closed.
 */
export interface AttemptGate {
  enter(model: ModelInfo): GatewayError | null | Promise<GatewayError | null>;
}
