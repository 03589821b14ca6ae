import type { Usage } from '../canonical/usage.ts';
import { addWebSearchCost, computeCost, type Cost } from '../billing/compute-cost.ts';
import { countInputImages } from '../billing/worst-case-cost.ts';
import { addTaskUnits } from '../billing/task-cost.ts';
import { estimateUsage } from './estimate-usage.ts';
import type { PlanRun } from './execute-plan.ts';
import type { AdmittedRequest, PipelineParts } from './pipeline-types.ts';
import type { TrackingSink } from './tracking-sink.ts';

/** What the run used and costs, before the hold is released (settle-generation.ts). */
export interface Priced {
  usage: Usage | null;
  cost: Cost | null;
}

/**
 * The usage the answer is charged for (the upstream's, else estimated from what it produced,
 * and sent to a client still there), and its exact cost at the serving endpoint's prices: a
 * response-cache hit at the cache's price, a web search that ran at the operator's price
 * whatever became of the answer. With the upstream's usage (the common case) priced at once,
 * without a promise; an estimate is awaited.
 */
export function priceGeneration(
  deps: PipelineParts,
  admitted: AdmittedRequest,
  run: PlanRun,
  tracking: TrackingSink,
): Priced | Promise<Priced> {
  const { execution } = run;
  const served = execution.served;
  const usage = tracking.usage;
  if (usage !== null || served === null) return price(deps, admitted, run, tracking, usage);
  return estimateUsage(admitted.req, served, tracking).then((estimated) => {
    // The answer reports the tokens it is charged for, like any upstream usage.
    if (!execution.cancelled) tracking.inner.part({ type: 'usage', usage: estimated });
    return price(deps, admitted, run, tracking, estimated);
  });
}

function price(deps: PipelineParts, admitted: AdmittedRequest, run: PlanRun, tracking: TrackingSink, usage: Usage | null): Priced {
  const { execution, searched } = run;
  const served = execution.served;
  if (usage !== null && usage.images === undefined) usage.images = countInputImages(admitted.req);
  if (usage !== null && admitted.req.task !== undefined) addTaskUnits(usage, admitted.req.task, tracking.taskResult);
  let cost = served !== null && usage !== null ? computeCost(usage, served.endpoint.compiledPricing) : null;
  if (admitted.cache?.hit != null && cost !== null && deps.responseCache !== undefined) cost = deps.responseCache.priceHit(cost);
  if (searched !== null && searched.searches > 0 && deps.webSearch !== undefined) {
    if (usage !== null) usage.webSearchRequests = searched.searches;
    cost = addWebSearchCost(cost, searched.searches, deps.webSearch.priceNanos);
  }
  return { usage, cost };
}
