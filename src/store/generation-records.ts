// The record's type lives with its row mapping (generation-row.ts): one file per record field.
export { toGenerationRecord } from './generation-row.ts';
export type { GenerationRecord, GuardrailHitRecord, ToolCallRecord } from './generation-row.ts';

// Generation records as the store contract hands them out, the filter of their ids, and the
// reading of a row of the `generations` view (both engines').

export interface UsageWindow {
  costNanos: bigint;
  requests: number;
}

export interface GenerationFilter {
  accountId?: string;
  keyHash?: string;
  model?: string;
  status?: 'success' | 'error';
  /** ISO 8601, inclusive. */
  since?: string;
  /** ISO 8601, exclusive. */
  until?: string;
  limit: number;
}

export function msOrNull(iso: string | undefined): number | null {
  return iso === undefined ? null : Date.parse(iso);
}
