import type { ReasoningConfig, ReasoningEffort } from '../../canonical/request.ts';

/** `max_tokens` when neither the request nor the endpoint names one (Anthropic requires it). */
export const DEFAULT_MAX_TOKENS = 4096;
/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * Thinking budgets for an effort, in tokens. `low` is Anthropic's minimum; `medium` and
 * `high` sit where Anthropic's extended-thinking guidance puts moderate and deep reasoning.
 * A request that turns reasoning on without an effort or budget gets `medium`.
 */
const EFFORT_BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
  max: 49_152,
};

export interface AnthropicOutputPlan {
  maxTokens: number;
  /** `thinking.budget_tokens`, or null for no thinking. */
  budget: number | null;
}

/**
 * `max_tokens` and the thinking budget together, since Anthropic requires
 * 1024 ≤ budget < max_tokens. `max_tokens` is the request's, else the endpoint's maximum
 * output, else DEFAULT_MAX_TOKENS. When the budget does not fit under it, `max_tokens` is
 * raised to budget + the requested output (so thinking does not eat the answer), within the
 * model's maximum; a budget that still does not fit is cut to fit, and thinking is left
 * off when not even the minimum budget fits.
 */
export function planAnthropicOutput(
  requestedMax: number | undefined,
  modelMax: number | undefined,
  reasoning: ReasoningConfig | undefined,
): AnthropicOutputPlan {
  const maxTokens = requestedMax ?? modelMax ?? DEFAULT_MAX_TOKENS;
  const wanted = thinkingBudget(reasoning);
  if (wanted === null) return { maxTokens, budget: null };
  let budget = Math.max(MIN_THINKING_BUDGET, wanted);
  if (budget < maxTokens) return { maxTokens, budget };
  let raised = budget + (requestedMax ?? DEFAULT_MAX_TOKENS);
  if (modelMax !== undefined && raised > modelMax) raised = modelMax;
  if (budget >= raised) budget = raised - 1;
  if (budget < MIN_THINKING_BUDGET) return { maxTokens, budget: null };
  return { maxTokens: raised, budget };
}

/** The budget a reasoning config asks for, or null when it asks for no reasoning. */
function thinkingBudget(r: ReasoningConfig | undefined): number | null {
  if (r === undefined || r.enabled === false || r.effort === 'none') return null;
  if (r.maxTokens !== undefined) return r.maxTokens > 0 ? r.maxTokens : null;
  return EFFORT_BUDGETS[r.effort ?? 'medium'];
}
