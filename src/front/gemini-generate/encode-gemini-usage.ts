import type { Usage } from '../../canonical/usage.ts';

// Canonical usage → Gemini's `usageMetadata`. Gemini's `promptTokenCount` includes the
// cached tokens (`cachedContentTokenCount` breaks them out), as the canonical `input`
// does; its `candidatesTokenCount` excludes thoughts (`thoughtsTokenCount`), which the
// canonical `output` includes. `cost` (USD) is the gateway's, as on the other endpoints,
// when billing has settled it.

export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  cost?: number;
}

/** `estimatedInput` stands in for the input when the upstream reported no usage. */
export function encodeGeminiUsage(usage: Usage | null, estimatedInput: number, cost?: number): GeminiUsageMetadata {
  let out: GeminiUsageMetadata;
  if (usage === null) {
    out = { promptTokenCount: estimatedInput, candidatesTokenCount: 0, totalTokenCount: estimatedInput };
  } else {
    const thoughts = Math.min(usage.reasoning, usage.output);
    out = { promptTokenCount: usage.input, candidatesTokenCount: usage.output - thoughts, totalTokenCount: usage.input + usage.output };
    if (usage.cacheRead > 0) out.cachedContentTokenCount = usage.cacheRead;
    if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  }
  if (cost !== undefined) out.cost = cost;
  return out;
}
