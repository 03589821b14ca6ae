import { chargedPromptTokens, chargedTextTokens } from '../canonical/prompt-token-bound.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Usage } from '../canonical/usage.ts';
import { maxOutputTokens, promptOn } from '../billing/worst-case-cost.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { TrackingSink } from './tracking-sink.ts';

/**
 * The usage charged when the upstream reported none (it never does, or the stream was cut
 * before its usage came): the prompt and everything the upstream produced, counted with
 * o200k_base. Reasoning the model may have done without showing it is counted too: when
 * the request or the model reasons and no reasoning text came, the reasoning budget (else
 * all the output the request allowed) is charged as hidden reasoning. Never more output
 * than the request allowed, so never more than its hold.
 */
export function estimateUsage(req: CanonicalRequest, attempt: PlannedAttempt, t: TrackingSink): Usage {
  const input = chargedPromptTokens(req);
  const visible = chargedTextTokens(t.output.join(''));
  const shown = chargedTextTokens(t.reasoning.join(''));
  const cap = maxOutputTokens(req, attempt.endpoint, promptOn(attempt.endpoint, input));
  const hidden = shown > 0 || !reasons(req, attempt) ? 0 : Math.max(0, Math.min(req.reasoning?.maxTokens ?? cap, cap - visible));
  return { input, cacheRead: 0, cacheWrite: 0, output: visible + shown + hidden, reasoning: shown + hidden };
}

function reasons(req: CanonicalRequest, attempt: PlannedAttempt): boolean {
  const r = req.reasoning;
  if (r?.enabled === false || r?.effort === 'none') return false;
  return r !== undefined || attempt.model.capabilities.includes('reasoning');
}
