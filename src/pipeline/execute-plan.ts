import type { Endpoint } from '../catalog/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { logSafely, SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { ExecutionResult, ExecutionSink } from '../routing/execute-attempts.ts';
import { SharedStateUnavailable, sharedStateUnavailable } from '../shared/shared-state-unavailable.ts';
import { moderatePlan } from './moderate-plan.ts';
import type { AdmittedRequest, ClientPresence, PipelineParts } from './pipeline-types.ts';
import { replayCachedAnswer } from './response-cache/replay-cached-answer.ts';
import { ScrubbingSink } from './scrubbing-sink.ts';
import type { TrackingSink } from './tracking-sink.ts';
import { CitingSink } from './web-search/citing-sink.ts';
import { runWebSearch, type WebSearchOutcome } from './web-search/gateway-web-search.ts';

/** What running the plan did, and the web search run before it (null: none). */
export interface PlanRun {
  execution: ExecutionResult;
  searched: WebSearchOutcome | null;
}

/**
 * Moderates (when the plan reaches moderated endpoints), runs the gateway's web search, then
 * the plan into `tracking` (or replays a response-cache hit). Never throws: a refusal, an
 * upstream's failure or an internal error is `execution.error`, scrubbed of credentials (the
 * operator's and the account's own keys).
 */
export async function executePlan(
  deps: PipelineParts,
  admitted: AdmittedRequest,
  tracking: TrackingSink,
  signal: AbortSignal,
  client?: ClientPresence,
): Promise<PlanRun> {
  let execution: ExecutionResult | null = null;
  // The account's own keys are secrets too: an upstream's error that repeats one is scrubbed.
  const byok = admitted.byok ?? null;
  const scrubber = byok === null ? deps.scrubber : deps.scrubber.with(new SecretScrubber(byok.secrets));
  const byokRejected =
    byok === null ? undefined : (endpoint: Endpoint, status: number) => deps.byok?.rejected(byok.accountId, endpoint, status);
  const hit = admitted.cache?.hit ?? null;
  let searched: WebSearchOutcome | null = null;
  try {
    const plan = await moderatePlan(deps.moderator, admitted, signal);
    let inner: ExecutionSink = tracking;
    if (admitted.webSearch !== null && deps.webSearch !== undefined) {
      searched = await runWebSearch(admitted.webSearch, admitted.req, deps.webSearch, signal, deps.now());
      inner = new CitingSink(tracking, searched.results, admitted.webSearch.ask.returnCitations, searched.skipped);
    }
    execution =
      hit !== null
        ? await replayCachedAnswer(hit.attempt, hit.parts, tracking)
        : await deps.executor.execute(
            plan,
            admitted.req,
            new ScrubbingSink(inner, scrubber),
            signal,
            deps.timeouts.attemptMs,
            admitted.modelLimits,
            () => client?.left === true,
            byokRejected,
          );
  } catch (thrown) {
    const err = thrown instanceof SharedStateUnavailable ? sharedStateUnavailable(thrown) : thrown;
    // Made only when nothing ran (not one result object per request to throw away).
    execution ??= { served: null, attempts: [], error: null, cancelled: false, firstTokenMs: null, upstreamWaitMs: 0 };
    execution.error = err instanceof GatewayError ? err : new GatewayError('internal_error', 'Internal server error');
    if (!(err instanceof GatewayError)) logSafely(`internal error: ${(err as Error | undefined)?.stack ?? String(err)}`);
  }
  // Whatever an upstream said goes to the client without our credentials.
  if (execution.error !== null) execution.error = scrubber.error(execution.error);
  // The client left (streamed or not, before its first byte or after): the upstream was read on for its usage.
  if (client?.left === true) execution.cancelled = true;
  return { execution, searched };
}
