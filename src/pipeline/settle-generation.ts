import { writeOff, type Cost } from '../billing/compute-cost.ts';
import type { SettlementResult } from '../billing/settlement-queue.ts';
import type { ExecutionResult } from '../routing/execute-attempts.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import { buildGenerationRecord } from './generation-record.ts';
import type { Priced } from './price-generation.ts';
import type { AdmittedRequest, PipelineParts } from './pipeline-types.ts';
import type { TrackingSink } from './tracking-sink.ts';

/** The settlement: whether its charge committed, the record written, the cost charged. */
export interface Settled {
  settled: SettlementResult;
  record: SettlementRecord;
  cost: Cost | null;
}

/**
 * Releases the hold and charges the cost (beyond the hold, only what the account and key
 * have room for: the rest is written off, `written_off` in the breakdown), then queues the
 * generation record with the charge and waits for it to commit. A success whose charge could
 * not be written is recorded as `storage_unavailable` (it is written later, when the database
 * accepts writes again: the client got no answer).
 */
export async function settleGeneration(
  deps: PipelineParts,
  admitted: AdmittedRequest,
  execution: ExecutionResult,
  tracking: TrackingSink,
  priced: Priced,
): Promise<Settled> {
  const { auth, heldNanos } = admitted;
  let cost = priced.cost;
  const finished = deps.reservations.finish(admitted.generationId, auth.account.id, auth.key.hash, heldNanos, cost?.totalNanos ?? 0n);
  // An in-process hold is released at once: awaited only when it is a promise (a fleet's Redis).
  const charged = typeof finished === 'bigint' ? finished : await finished;
  if (cost !== null) cost = writeOff(cost, charged);
  const subject = {
    id: admitted.generationId,
    auth,
    req: admitted.req,
    info: admitted.info,
    startedAt: admitted.startedAt,
    guardrails: admitted.guardrails,
  };
  const record = buildGenerationRecord(
    subject,
    {
      kind: 'ran',
      execution,
      plannedModel: admitted.plan[0]?.model.id ?? admitted.req.models[0]?.model ?? 'unknown',
      upstreamId: tracking.upstreamId,
      finish: tracking.finish,
      usage: priced.usage,
      cost,
      // Holds kept only in Redis have no row for the settlement to remove (CreditHolds.holdRows).
      holdRowWritten: deps.reservations.holdRows && heldNanos !== 0n,
      cacheHit: admitted.cache?.hit != null,
    },
    deps.now(),
  );
  const settled = await deps.settlements.push(record);
  if (!settled.committed && record.status === 'success') {
    record.status = 'error';
    record.errorCode = 'storage_unavailable';
  }
  return { settled, record, cost };
}
