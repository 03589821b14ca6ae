import type { CanonicalRequest, ReasoningConfig, ReasoningEffort } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { invalidType, readBoolean, readEnum, readNumber, type JsonObject, type NumberRange } from './read-fields.ts';

// The `reasoning` object of the chat and responses dialects:
// `{effort?, max_tokens?, enabled?, exclude?}`.

/** Every effort some vendor accepts; the spec names low/medium/high. */
export const REASONING_EFFORTS: ReadonlySet<ReasoningEffort> = new Set<ReasoningEffort>([
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
]);
const BUDGET: NumberRange = { min: 0, integer: true };

export function decodeReasoning(obj: JsonObject, key: string): ReasoningConfig | undefined {
  const raw = obj[key];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidType(key, 'an object', raw);
  const r = raw as JsonObject;
  const out: ReasoningConfig = {};
  const effort = readEnum(r, 'effort', REASONING_EFFORTS, key);
  if (effort !== undefined) out.effort = effort;
  const maxTokens = readNumber(r, 'max_tokens', BUDGET, key);
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  const enabled = readBoolean(r, 'enabled', key);
  if (enabled !== undefined) out.enabled = enabled;
  const exclude = readBoolean(r, 'exclude', key);
  if (exclude !== undefined) out.exclude = exclude;
  return out;
}

/**
 * Whether a request asks the model to reason: a reasoning config is present and neither
 * switches it off (`enabled: false`) nor asks for no effort. Parameters that reasoning
 * models reject (`top_k`, a forced `tool_choice`) are refused only then.
 */
export function isReasoningEnabled(r: ReasoningConfig | undefined): boolean {
  return r !== undefined && r.enabled !== false && r.effort !== 'none';
}

/** Refuses what reasoning models reject, for a request whose reasoning is enabled. */
export function checkReasoningConflicts(req: CanonicalRequest): void {
  if (req.sampling.topK !== undefined) {
    throw new GatewayError('reasoning_conflict', "'top_k' is not allowed while reasoning is enabled; remove it or disable reasoning.", {
      param: 'top_k',
    });
  }
  const choice = req.toolChoice;
  if (choice !== undefined && choice.type !== 'auto' && choice.type !== 'none') {
    throw new GatewayError(
      'reasoning_conflict',
      "'tool_choice' must be 'auto' or 'none' while reasoning is enabled; a forced tool choice needs reasoning disabled.",
      { param: 'tool_choice' },
    );
  }
}
