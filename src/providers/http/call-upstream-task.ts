import type { CanonicalRequest } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { HttpProviderAdapter } from '../types.ts';
import type { UpstreamAttempt } from './call-upstream.ts';

// A task a vendor takes in smaller pieces than the client sent it: embeddings whose inputs
// outnumber what one upstream call takes (Titan one, Cohere 96, Gemini 100, OpenAI 2,048).
// The inputs are cut into consecutive parts, each sent as its own call (a few at a time),
// and the answers joined in input order into one task result with the summed usage: the
// client, the charge and the generation record see one request. One part failing fails the
// whole attempt (no further part is sent), so routing may try another endpoint for all of it.

/** Parts of one request in flight at once: enough to hide latency, few enough not to trip a vendor's rate limit. */
export const PART_CONCURRENCY = 4;

/** The request cut into parts this endpoint takes, or null when one call carries it all. */
export function splitForVendor(adapter: HttpProviderAdapter, endpoint: Endpoint, req: CanonicalRequest): CanonicalRequest[] | null {
  const task = req.task;
  const codec = adapter.tasks;
  // An endpoint that does not embed is refused whole, before anything is sent (call-upstream.ts).
  if (task?.kind !== 'embedding' || codec?.maxInputs === undefined || !codec.kindsFor(endpoint.provider).has('embedding')) return null;
  const limit = Math.max(1, Math.floor(codec.maxInputs(task, endpoint)));
  if (task.input.length <= limit) return null;
  const parts: CanonicalRequest[] = [];
  for (let start = 0; start < task.input.length; start += limit) {
    const input = task.input.slice(start, start + limit);
    parts.push({ ...req, task: { ...task, input } });
  }
  return parts;
}

/** One call per part: `callOne` sends a part and feeds its answer into the part's own attempt. */
export type PartCall = (part: CanonicalRequest, attempt: UpstreamAttempt, signal: AbortSignal) => Promise<void>;

/**
 * Sends the parts (PART_CONCURRENCY at a time) and feeds `attempt` the joined answer: one
 * `task-result` with every vector in input order, one `usage` (the parts' sum, or none when a
 * part reported none: the gateway then counts the whole request), one `finish`. Never throws.
 */
export async function callInParts(
  parts: CanonicalRequest[],
  callOne: PartCall,
  attempt: UpstreamAttempt,
  signal: AbortSignal,
): Promise<void> {
  const started = performance.now();
  const runs = parts.map(() => new PartAttempt());
  let next = 0;
  let failed: PartAttempt | null = null;
  // Parts share the request's signal (a deadline or the client leaving stops them all, and
  // their spans find the request's). After a failure no part starts; those in flight (at
  // most PART_CONCURRENCY - 1) end on their own.
  const worker = async (): Promise<void> => {
    while (next < parts.length && failed === null && !signal.aborted) {
      const i = next++;
      const run = runs[i]!;
      await callOne(parts[i]!, run, signal);
      if (run.error === null && run.vectors === null && !signal.aborted) run.fail(missingResult());
      if (run.error !== null && failed === null) failed = run;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PART_CONCURRENCY, parts.length) }, worker));
  const sent = runs.filter((r) => !r.notSent && r.status !== 0);
  attempt.waitedMs = Math.min(
    performance.now() - started,
    runs.reduce((sum, r) => sum + r.waitedMs, 0),
  );
  const failure = failed as PartAttempt | null;
  if (failure !== null) {
    attempt.status = failure.status;
    attempt.notSent = sent.length === 0 && failure.notSent;
    attempt.fail(failure.error!);
    return;
  }
  if (signal.aborted) return; // the executor reads the signal: a deadline or the client leaving
  attempt.status = runs.at(-1)!.status;
  const vectors: number[][] = [];
  for (const run of runs) for (const v of run.vectors!) vectors.push(v);
  attempt.emit({ type: 'task-result', result: { kind: 'embedding', vectors } });
  const usage = sumUsage(runs.map((r) => r.usage));
  if (usage !== null) attempt.emit({ type: 'usage', usage });
  attempt.emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}

/** The parts' usage added up; null when any part reported none. */
function sumUsage(all: (Usage | null)[]): Usage | null {
  const total: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  for (const u of all) {
    if (u === null) return null;
    total.input += u.input;
    total.output += u.output;
    total.cacheRead += u.cacheRead;
    total.cacheWrite += u.cacheWrite;
    total.reasoning += u.reasoning;
  }
  return total;
}

/** The adapter decoded neither a result nor an error: said, not joined as a hole. */
function missingResult(): GatewayError {
  return new GatewayError('provider_error', 'The provider answered a part of the request with no embeddings.');
}

/** One part's call: keeps its answer instead of passing it on, so the parts can be joined. */
class PartAttempt implements UpstreamAttempt {
  error: GatewayError | null = null;
  status = 0;
  notSent = false;
  waitedMs = 0;
  vectors: number[][] | null = null;
  usage: Usage | null = null;
  readonly answerBegun = false;
  readonly emit = (part: StreamPart): void => {
    if (this.error !== null) return;
    if (part.type === 'error') this.error = part.error;
    else if (part.type === 'task-result' && part.result.kind === 'embedding') this.vectors = part.result.vectors;
    else if (part.type === 'usage') this.usage = part.usage;
  };

  fail(error: GatewayError): void {
    if (this.error === null) this.error = error;
  }

  waitForDrain(): null {
    return null;
  }
}
