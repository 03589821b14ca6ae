import type { ReasoningConfig, ReasoningEffort, ResponseFormat } from '../../canonical/request.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  readEnum,
  readNumber,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';

// `thinking` and `output_config` of a messages request → the canonical reasoning config
// and response format.
// - `{type: 'enabled', budget_tokens}` → reasoning on with that budget (`maxTokens`).
//   Anthropic wants the budget under `max_tokens`, except with interleaved thinking
//   (tools with `tool_choice` auto), where it is the budget of the whole turn; the
//   provider adapter fits it to its vendor, so only its type is checked here.
// - `{type: 'adaptive'}` (what Claude Code and newer models use) → reasoning on, the
//   effort from `output_config.effort` when given.
// - `{type: 'disabled'}` → reasoning off.
// - `display: 'omitted'` → reasoning still happens but its text is not returned
//   (`exclude`); the thinking blocks keep their signatures so the turn can be replayed.
//   An Anthropic upstream is asked for `display: 'omitted'` in turn, so the signatures it
//   returns are valid for the empty blocks the client replays.
// `output_config.effort` without thinking enabled is not carried: on other vendors an
// effort switches reasoning on, which the client did not ask for.

const BUDGET: NumberRange = { min: 1, integer: true };
const EFFORTS: ReadonlySet<ReasoningEffort> = new Set<ReasoningEffort>(['low', 'medium', 'high', 'xhigh', 'max']);
const DISPLAYS: ReadonlySet<string> = new Set(['summarized', 'omitted']);

export interface DecodedThinking {
  reasoning: ReasoningConfig | undefined;
  /** Thinking was asked for: `top_k` and a forced tool choice are then refused. */
  enabled: boolean;
}

export function decodeMessagesThinking(body: JsonObject, outputConfig: JsonObject | undefined): DecodedThinking {
  const raw = body.thinking;
  if (raw === undefined || raw === null) return { reasoning: undefined, enabled: false };
  if (!isObject(raw)) throw invalidType('thinking', "an object {type: 'enabled' | 'adaptive' | 'disabled'}", raw);
  const reasoning: ReasoningConfig = {};
  switch (raw.type) {
    case 'disabled':
      return { reasoning: { enabled: false }, enabled: false };
    case 'enabled': {
      const budget = readNumber(raw, 'budget_tokens', BUDGET, 'thinking');
      if (budget === undefined) throw missingParameter('thinking.budget_tokens', "is required when type is 'enabled'");
      reasoning.enabled = true;
      reasoning.maxTokens = budget;
      break;
    }
    case 'adaptive':
      reasoning.enabled = true;
      break;
    case undefined:
    case null:
      throw missingParameter('thinking.type');
    default:
      throw invalidValue('thinking.type', `must be 'enabled', 'adaptive' or 'disabled', got ${JSON.stringify(raw.type)}`);
  }
  const effort = outputConfig === undefined ? undefined : readEnum(outputConfig, 'effort', EFFORTS, 'output_config');
  if (effort !== undefined) reasoning.effort = effort;
  if (readEnum(raw, 'display', DISPLAYS, 'thinking') === 'omitted') reasoning.exclude = true;
  return { reasoning, enabled: true };
}

/** `output_config.format` `{type: 'json_schema', schema}` → structured output. */
export function decodeMessagesOutputFormat(outputConfig: JsonObject | undefined): ResponseFormat | undefined {
  if (outputConfig === undefined) return undefined;
  const format = outputConfig.format;
  if (format === undefined || format === null) return undefined;
  if (!isObject(format)) throw invalidType('output_config.format', "an object {type: 'json_schema', schema}", format);
  if (format.type !== 'json_schema') {
    if (format.type === undefined || format.type === null) throw missingParameter('output_config.format.type');
    throw invalidValue('output_config.format.type', `must be 'json_schema', got ${JSON.stringify(format.type)}`);
  }
  const schema = format.schema;
  if (schema === undefined || schema === null) throw missingParameter('output_config.format.schema');
  if (!isObject(schema)) throw invalidType('output_config.format.schema', 'a JSON Schema object', schema);
  return { type: 'json_schema', name: 'output', schema };
}
