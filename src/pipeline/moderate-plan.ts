import type { PlannedAttempt } from '../catalog/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { Moderator } from '../moderation/moderator.ts';
import type { AdmittedRequest } from './pipeline-types.ts';

/**
 * The plan moderation leaves. Input bound for moderated endpoints is checked first. Flagged
 * input, and input that could not be checked (over the moderation cap, or the moderation
 * upstream failed), may still go to the plan's unmoderated endpoints; when none is left, the
 * request is refused: 403 when flagged, else the reason it could not be checked (413, 502).
 */
export async function moderatePlan(moderator: Moderator, admitted: AdmittedRequest, signal: AbortSignal): Promise<PlannedAttempt[]> {
  const plan = admitted.plan;
  if (!moderator.enabled || !plan.some((a) => a.endpoint.moderated === true)) return plan;
  const verdict = await moderator.check(admitted.req, signal, admitted.auth.account.id);
  if (verdict.kind === 'clear') return plan;
  const open = plan.filter((a) => a.endpoint.moderated !== true);
  if (open.length > 0) return open;
  if (verdict.kind === 'unchecked') throw verdict.error;
  const first = plan[0];
  throw new GatewayError('content_filtered', `The input was flagged by moderation (${verdict.reasons.join(', ')}).`, {
    metadata: {
      reasons: verdict.reasons,
      flagged_input: verdict.flaggedInput,
      provider_name: first?.endpoint.provider.id ?? null,
      model_slug: first?.model.id ?? null,
    },
  });
}
