import type { PlannedAttempt } from '../../catalog/types.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { ExecutionResult, ExecutionSink } from '../../routing/execute-attempts.ts';

/**
 * A response-cache hit, played into the sink as the attempt that first served it did: the
 * dialect's encoder makes a stream or a whole answer of the parts. No upstream is called,
 * so there are no attempts to record. Waits for the client to take data (backpressure).
 */
export async function replayCachedAnswer(
  attempt: PlannedAttempt,
  parts: readonly StreamPart[],
  sink: ExecutionSink,
): Promise<ExecutionResult> {
  sink.beginAttempt(attempt);
  for (const part of parts) {
    sink.part(part);
    const drained = sink.waitForDrain();
    if (drained !== null) await drained;
  }
  return { served: attempt, attempts: [], error: null, cancelled: false, firstTokenMs: 0, upstreamWaitMs: 0 };
}
