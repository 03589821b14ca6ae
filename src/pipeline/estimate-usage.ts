import { offThreadTokenizer } from '../canonical/off-thread-tokenizer.ts';
import { chargedPromptParts } from '../canonical/prompt-token-bound.ts';
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
 * than the request allowed, so never more than its hold. The counting runs on the
 * tokenizer thread (canonical/off-thread-tokenizer.ts).
 */
export async function estimateUsage(req: CanonicalRequest, attempt: PlannedAttempt, t: TrackingSink): Promise<Usage> {
  // Counted on the tokenizer thread: the encodings' first load (~190 ms) would stall every request.
  const prompt = chargedPromptParts(req);
  const counts = await offThreadTokenizer.count([t.output.join(''), t.reasoning.join(''), ...prompt.texts]);
  const visible = counts[0]!;
  const shown = counts[1]!;
  let input = prompt.fixed;
  for (let i = 2; i < counts.length; i++) input += counts[i]!;
  // A task's output is priced in its own units (billing/task-cost.ts), not in tokens.
  if (req.task !== undefined) return { input, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };
  const cap = maxOutputTokens(req, attempt.endpoint, promptOn(attempt.endpoint, input));
  const hidden = shown > 0 || !reasons(req, attempt) ? 0 : Math.max(0, Math.min(req.reasoning?.maxTokens ?? cap, cap - visible));
  return { input, cacheRead: 0, cacheWrite: 0, output: visible + shown + hidden, reasoning: shown + hidden };
}

function reasons(req: CanonicalRequest, attempt: PlannedAttempt): boolean {
  const r = req.reasoning;
  if (r?.enabled === false || r?.effort === 'none') return false;
  return r !== undefined || attempt.model.capabilities.includes('reasoning');
}
