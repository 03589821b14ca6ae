import { storageUnavailable } from '../billing/settlement-queue.ts';
import { armDeadline, Deadline, disarmDeadline } from '../runtime/deadlines.ts';
import { RequestDeadlineError, type ExecutionSink } from '../routing/execute-attempts.ts';
import { executePlan, type PlanRun } from './execute-plan.ts';
import type { AdmittedRequest, ClientPresence, GenerationOutcome, PipelineParts } from './pipeline-types.ts';
import { priceGeneration } from './price-generation.ts';
import { RecordingSink } from './response-cache/response-cache.ts';
import { settleGeneration } from './settle-generation.ts';
import { TrackingSink } from './tracking-sink.ts';

/**
 * Runs an admitted request into `sink` (executePlan), prices it, settles it and waits until
 * the charge is committed, so the caller writes the answer's last bytes only once its charge
 * is on disk. A successful answer is remembered for sticky routing and saved to the response
 * cache. Never throws for upstream failures: see outcome.execution.error. When the charge
 * cannot be written, the answer is not delivered: the error becomes `storage_unavailable`
 * (the charge stays queued).
 */
export async function runGeneration(
  deps: PipelineParts,
  admitted: AdmittedRequest,
  sink: ExecutionSink,
  abort: AbortController,
  client?: ClientPresence,
): Promise<GenerationOutcome> {
  const requestMs = deps.timeouts.requestMs;
  const deadline = new RequestDeadline(abort);
  armDeadline(deadline, requestMs);
  const signal = abort.signal;
  // The catalog's id of the model asked for (an alias or `:variant` resolved), not the client's text.
  const span = deps.telemetry.requestStarted(
    admitted.plan[0]?.model.id ?? 'unknown',
    admitted.info.dialect,
    admitted.startedAt,
    signal,
    admitted.info.traceparent ?? null,
  );
  const cache = admitted.cache;
  const hit = cache?.hit ?? null;
  const recorder = cache !== null && hit === null ? new RecordingSink(sink) : null;
  const tracking = new TrackingSink(recorder ?? sink);
  let run: PlanRun;
  try {
    run = await executePlan(deps, admitted, tracking, signal, client);
  } finally {
    disarmDeadline(deadline, requestMs);
  }
  const { execution } = run;
  const served = execution.served;
  // Priced at once with the upstream's usage: awaited only when estimated (no microtask turn otherwise).
  const pricing = priceGeneration(deps, admitted, run, tracking);
  const priced = pricing instanceof Promise ? await pricing : pricing;
  const answered = served !== null && execution.error === null && !execution.cancelled;
  // A response-cache hit called no upstream: it says nothing of where a prompt cache is.
  if (answered && admitted.sticky !== null && hit === null) deps.sticky?.remember(admitted.sticky, served.endpoint.id, priced.usage);
  if (answered && recorder !== null && cache !== null) deps.responseCache?.save(cache, served, recorder.parts);
  const { settled, record, cost } = await settleGeneration(deps, admitted, execution, tracking, priced);
  if (!settled.committed && execution.error === null && !execution.cancelled) execution.error = storageUnavailable();
  deps.telemetry.requestEnded({ record, error: execution.error, party: { keyLabel: admitted.auth.key.label }, span }, true, signal);
  return { execution, usage: priced.usage, cost, served };
}

/** The request's time limit (timeouts.request_ms): past it, the request is aborted (408). */
class RequestDeadline extends Deadline {
  private readonly abort: AbortController;

  constructor(abort: AbortController) {
    super();
    this.abort = abort;
  }

  protected expire(): void {
    this.abort.abort(new RequestDeadlineError());
  }
}
