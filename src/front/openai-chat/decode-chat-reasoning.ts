import type { ReasoningConfig, ReasoningEffort } from '../../canonical/request.ts';
import { decodeReasoning, REASONING_EFFORTS } from '../shared/decode-reasoning.ts';
import {
  invalidType,
  invalidValue,
  listValues,
  readBoolean,
  readEnum,
  readNumber,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';

// A chat request can ask for reasoning three ways: OpenRouter's `reasoning` object, the
// Gemini-style `thinking_config` alias and OpenAI's top-level `reasoning_effort`. They
// merge into one config; where two set the same thing, `reasoning` wins, then
// `thinking_config`, then `reasoning_effort`.

// Gemini: -1 is "dynamic budget", 0 is "no thinking".
const THINKING_BUDGET: NumberRange = { min: -1, integer: true };

export function decodeChatReasoning(body: JsonObject): ReasoningConfig | undefined {
  const reasoning = decodeReasoning(body, 'reasoning');
  const thinking = decodeThinkingConfig(body);
  const effort = readEnum(body, 'reasoning_effort', REASONING_EFFORTS);
  if (thinking === undefined && effort === undefined) return reasoning;

  const out: ReasoningConfig = reasoning ?? {};
  if (thinking !== undefined) {
    if (out.enabled === undefined && thinking.enabled !== undefined) out.enabled = thinking.enabled;
    if (out.effort === undefined && thinking.effort !== undefined) out.effort = thinking.effort;
    if (out.maxTokens === undefined && thinking.maxTokens !== undefined) out.maxTokens = thinking.maxTokens;
    if (out.exclude === undefined && thinking.exclude !== undefined) out.exclude = thinking.exclude;
  }
  if (out.effort === undefined && effort !== undefined) out.effort = effort;
  return out;
}

function decodeThinkingConfig(body: JsonObject): ReasoningConfig | undefined {
  const raw = body.thinking_config;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidType('thinking_config', 'an object', raw);
  const t = raw as JsonObject;
  const out: ReasoningConfig = {};

  const budget = readNumber(t, 'thinking_budget', THINKING_BUDGET, 'thinking_config');
  if (budget === 0) out.enabled = false;
  else if (budget === -1) out.enabled = true;
  else if (budget !== undefined) out.maxTokens = budget;

  const level = t.thinking_level;
  if (level !== undefined && level !== null) {
    if (typeof level !== 'string') throw invalidType('thinking_config.thinking_level', 'a string', level);
    // Gemini spells levels in capitals (`HIGH`); the canonical efforts are lower case.
    const effort = level.toLowerCase() as ReasoningEffort;
    if (!REASONING_EFFORTS.has(effort)) {
      throw invalidValue('thinking_config.thinking_level', `must be one of ${listValues(REASONING_EFFORTS)}, got ${JSON.stringify(level)}`);
    }
    out.effort = effort;
  }

  const include = readBoolean(t, 'include_thoughts', 'thinking_config');
  if (include !== undefined) out.exclude = !include;
  return out;
}
