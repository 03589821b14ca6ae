import type { ReasoningConfig, ReasoningEffort } from '../../canonical/request.ts';
import type { GeminiThinkingConfig } from './gemini-wire-types.ts';

// `reasoning` → `thinkingConfig`. Gemini takes a token budget or (Gemini 3) a level, and
// refuses both at once (400), so exactly one is sent:
// - a budget (`reasoning.max_tokens`) → `thinkingBudget`, clamped to the model's range;
// - else an effort → `thinkingLevel` on Gemini 3, a budget from the table below on 2.5;
// - reasoning off (`enabled: false` or effort `none`) → `thinkingBudget: 0` where the model
//   allows it; 2.5 Pro and Gemini 3 always think, so they get their least thinking instead.
// Thoughts come back (`includeThoughts`) unless the reasoning is excluded; they are billed
// either way.

type Level = NonNullable<GeminiThinkingConfig['thinkingLevel']>;

const LEVELS: Readonly<Record<ReasoningEffort, Level>> = {
  none: 'MINIMAL',
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  xhigh: 'HIGH',
  max: 'HIGH',
};

/** Budgets for 2.5 models; `high` and up is the model's maximum. */
const BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: Infinity,
  xhigh: Infinity,
  max: Infinity,
};

interface ModelThinking {
  /** Takes `thinkingLevel` (Gemini 3). */
  levels: boolean;
  /** The budget range while thinking. */
  minBudget: number;
  maxBudget: number;
  /** The budget for "off": 0, or the least on models that always think. */
  offBudget: number;
  /** The least thinking when it cannot be turned off. */
  leastLevel: Level;
}

export function modelThinking(upstreamModel: string): ModelThinking {
  const model = upstreamModel.startsWith('models/') ? upstreamModel.slice(7) : upstreamModel;
  const pro = model.includes('-pro');
  return {
    levels: /^gemini-[3-9]/.test(model),
    minBudget: pro ? 128 : model.includes('flash-lite') ? 512 : 1,
    maxBudget: pro ? 32_768 : 24_576,
    offBudget: pro ? 128 : 0,
    // Gemini 3 Pro refuses MINIMAL.
    leastLevel: pro ? 'LOW' : 'MINIMAL',
  };
}

export function convertToGeminiThinkingConfig(reasoning: ReasoningConfig, upstreamModel: string): GeminiThinkingConfig | undefined {
  const model = modelThinking(upstreamModel);
  if (reasoning.enabled === false || reasoning.effort === 'none' || reasoning.maxTokens === 0) {
    return model.levels ? { thinkingLevel: model.leastLevel } : { thinkingBudget: model.offBudget };
  }
  const config: GeminiThinkingConfig = {};
  if (reasoning.maxTokens !== undefined) {
    config.thinkingBudget = Math.min(model.maxBudget, Math.max(model.minBudget, reasoning.maxTokens));
  } else if (reasoning.effort !== undefined) {
    if (model.levels) config.thinkingLevel = LEVELS[reasoning.effort];
    else config.thinkingBudget = Math.min(model.maxBudget, Math.max(model.minBudget, BUDGETS[reasoning.effort]));
  }
  if (reasoning.exclude !== true) config.includeThoughts = true;
  return config.thinkingBudget === undefined && config.thinkingLevel === undefined && config.includeThoughts === undefined
    ? undefined
    : config;
}
