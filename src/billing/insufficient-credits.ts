import type { CanonicalRequest } from '../canonical/request.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { PromptTokenBound } from '../canonical/prompt-token-bound.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { formatNanos, type Nanos } from '../money/money.ts';
import { affordableOutputTokens, dearestEndpoint, maxOutputTokens, promptOn } from './worst-case-cost.ts';

/** Why a hold was refused: the account's balance, the key's limit, the account's budget or the key's member's budget. */
export type InsufficientReason = 'balance' | 'key_limit' | 'budget' | 'member_budget';

/** The 402 for a request its account balance, its key's limit or a budget cannot hold: what is left, and what would fit. */
export function insufficient(
  reason: InsufficientReason,
  available: Nanos,
  needed: Nanos,
  req: CanonicalRequest,
  plan: readonly PlannedAttempt[],
  prompt: PromptTokenBound,
): GatewayError {
  const [whose, remedy] = explain(reason);
  // With nothing left the cheap bound says as much as the tokenizer's would.
  const promptTokens = available > 0n ? prompt.tight() : prompt.cheap;
  // Priced on the endpoint the hold was priced on: the plan's dearest.
  const dearest = dearestEndpoint(req, plan, promptTokens);
  const requested = maxOutputTokens(req, dearest, promptOn(dearest, promptTokens));
  const affordable = Math.min(requested, affordableOutputTokens(req, dearest, promptTokens, available));
  const message =
    available <= 0n
      ? `Insufficient credits: ${whose} is used up. To continue, ${remedy}.`
      : `Insufficient credits: this request may cost up to $${formatNanos(needed)} but ${whose} has $${formatNanos(available)} left. ` +
        `You requested up to ${requested} output tokens, but can only afford ${affordable}; lower max_tokens or ${remedy}.`;
  return new GatewayError('insufficient_quota', message, {
    metadata: {
      reason,
      available: formatNanos(available),
      required: formatNanos(needed),
      requested_output_tokens: requested,
      affordable_output_tokens: affordable,
    },
  });
}

/** Whose money ran out, and what helps. A key's limit or a budget is not the account's money: adding credits would not help, raising it would. */
function explain(reason: InsufficientReason): [string, string] {
  switch (reason) {
    case 'balance':
      return ['the account balance', 'add credits'];
    case 'budget':
      return [
        "the account's budget for this period",
        "wait for the budget's next period or ask the gateway operator to raise the account's budget",
      ];
    case 'member_budget':
      return [
        "this key's member's budget for this period",
        "wait for the budget's next period or ask an owner or admin of the account to raise the member's budget",
      ];
    case 'key_limit':
      return [
        "this key's credit limit",
        "raise or remove this key's limit (PATCH /api/v1/keys/{hash} with a management key of the account, or ask the gateway operator) or use another key of the account",
      ];
  }
}

export function clampZero(n: bigint): bigint {
  return n < 0n ? 0n : n;
}
