import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { guardRequest, guardrailRefusal } from '../moderation/guardrails.ts';
import type { Telemetry } from '../observability/telemetry.ts';
import type { GuardrailHitRecord } from '../store/generation-records.ts';

/**
 * The account's guardrails (docs/governance.md#guardrails), applied at admission before the
 * estimate (a redaction changes the prompt) and any upstream call. Returns the rules that
 * fired, for the request's record; a rule that blocks throws the 403. Counted in the metrics.
 * `fired` receives the hits before a refusal is thrown, so the refusal's record names them too.
 */
export function applyGuardrails(auth: AuthContext, req: CanonicalRequest, telemetry: Telemetry, fired: GuardrailHitRecord[]): void {
  const rules = auth.account.guardrails;
  if (rules == null || rules.length === 0) return;
  const outcome = guardRequest(req, rules);
  if (outcome.hits.length === 0) return;
  telemetry.guardrailsFired(outcome.hits);
  fired.push(...outcome.hits);
  if (outcome.blocked.length > 0) throw guardrailRefusal(outcome.blocked);
}
