import type { AuthContext } from '../auth/authenticate.ts';
import { assertNever } from '../canonical/assert-never.ts';
import type { FinishReason } from '../canonical/finish-reason.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import type { Usage } from '../canonical/usage.ts';
import type { Cost } from '../billing/compute-cost.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ExecutionResult } from '../routing/execute-attempts.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import type { GuardrailHitRecord } from '../store/generation-records.ts';
import type { RequestInfo } from './pipeline-types.ts';

// The generation record, built in one place for every outcome: a request refused at
// admission (its record goes to telemetry only: a refusal is counted, never stored), and a
// request that ran (served, failed upstream, cancelled by its client, or answered from the
// response cache), whose record is settled with its charge. A new field of the record is
// set here, once; the store maps it to its row (store/generation-row.ts) and
// server/routes/generation-view.ts shows it.

/** Who asked what, and when: every record has it. */
export interface RecordSubject {
  id: string;
  auth: AuthContext;
  req: CanonicalRequest;
  info: RequestInfo;
  startedAt: number;
  /** The account's guardrail rules that fired (never what they matched). */
  guardrails: readonly GuardrailHitRecord[];
}

/** How the request ended. */
export type RecordOutcome =
  | { kind: 'refused'; error: GatewayError }
  | {
      kind: 'ran';
      execution: ExecutionResult;
      /** The catalog id of the model the plan asked for first (the record's model when no attempt served). */
      plannedModel: string;
      upstreamId: string | null;
      finish: FinishReason | null;
      usage: Usage | null;
      cost: Cost | null;
      /** The request's credit hold has a row for the settlement to remove. */
      holdRowWritten: boolean;
      cacheHit: boolean;
    };

/** What differs between the outcomes, before it is laid out as the record. */
interface OutcomeFacts {
  model: string | null;
  provider: string | null;
  upstreamModel: string | null;
  byok: boolean;
  execution: ExecutionResult | null;
  errorCode: string | null;
  upstreamId: string | null;
  finish: FinishReason | null;
  usage: Usage | null;
  cost: Cost | null;
  holdRowWritten: boolean;
  cacheHit: boolean;
}

function factsOf(subject: RecordSubject, outcome: RecordOutcome): OutcomeFacts {
  switch (outcome.kind) {
    case 'refused':
      // Refused before any plan ran: the model as the client named it.
      return {
        model: subject.req.models[0]?.model ?? null,
        provider: null,
        upstreamModel: null,
        byok: false,
        execution: null,
        errorCode: outcome.error.code,
        upstreamId: null,
        finish: null,
        usage: null,
        cost: null,
        holdRowWritten: false,
        cacheHit: false,
      };
    case 'ran': {
      const served = outcome.execution.served;
      return {
        model: served?.model.id ?? outcome.plannedModel,
        provider: served?.endpoint.provider.id ?? null,
        upstreamModel: served?.endpoint.upstreamModel ?? null,
        byok: served?.endpoint.provider.byok !== undefined,
        execution: outcome.execution,
        errorCode: outcome.execution.error?.code ?? null,
        upstreamId: outcome.upstreamId,
        finish: outcome.finish,
        usage: outcome.usage,
        cost: outcome.cost,
        holdRowWritten: outcome.holdRowWritten,
        cacheHit: outcome.cacheHit,
      };
    }
    default:
      return assertNever(outcome);
  }
}

/** The generation record of `subject` ended as `outcome` at `endedAt` (epoch ms). */
export function buildGenerationRecord(subject: RecordSubject, outcome: RecordOutcome, endedAt: number): SettlementRecord {
  const f = factsOf(subject, outcome);
  const { auth, req, info } = subject;
  const cancelled = f.execution?.cancelled ?? false;
  const record: SettlementRecord = {
    id: subject.id,
    accountId: auth.account.id,
    keyHash: auth.key.hash,
    costNanos: f.cost?.totalNanos ?? 0n,
    holdRowWritten: f.holdRowWritten,
    model: f.model,
    provider: f.provider,
    upstreamModel: f.upstreamModel,
    upstreamId: f.upstreamId,
    dialect: info.dialect,
    streamed: req.stream,
    cancelled,
    status: f.errorCode !== null || cancelled ? 'error' : 'success',
    errorCode: f.errorCode,
    finishReason: f.finish?.unified ?? null,
    nativeFinishReason: f.finish?.raw ?? null,
    tokensPrompt: f.usage?.input ?? 0,
    tokensCompletion: f.usage?.output ?? 0,
    tokensCacheRead: f.usage?.cacheRead ?? 0,
    tokensCacheWrite: f.usage?.cacheWrite ?? 0,
    tokensReasoning: f.usage?.reasoning ?? 0,
    costBreakdown: f.cost?.breakdown ?? null,
    latencyMs: endedAt - subject.startedAt,
    firstTokenMs: f.execution?.firstTokenMs ?? null,
    attempts: f.execution?.attempts ?? [],
    httpReferer: info.httpReferer,
    xTitle: info.xTitle,
    endUser: req.user ?? null,
    createdAt: new Date(subject.startedAt).toISOString(),
  };
  // Optional fields are absent where they do not apply: such records read back as they were written.
  if (f.execution !== null) record.cacheHit = f.cacheHit;
  if (f.byok) record.byok = true;
  if (info.parentId !== undefined) record.parentId = info.parentId;
  if (info.toolCalls !== undefined && info.toolCalls.length > 0) record.toolCalls = info.toolCalls;
  if (subject.guardrails.length > 0)
    record.guardrails = subject.guardrails.map((h) => ({ name: h.name, detector: h.detector, action: h.action }));
  return record;
}
