import type { DatabaseSync } from 'node:sqlite';
import { decodeBreakdown } from './generation-row.ts';

export interface UsageWindow {
  costNanos: bigint;
  requests: number;
}

/** A generation record: what one request did and cost (written by ledger-store.ts with its charge). */
export interface GenerationRecord {
  id: string;
  accountId: string;
  keyHash: string;
  model: string | null;
  provider: string | null;
  upstreamModel: string | null;
  upstreamId: string | null;
  dialect: string;
  streamed: boolean;
  cancelled: boolean;
  status: 'success' | 'error';
  errorCode: string | null;
  finishReason: string | null;
  nativeFinishReason: string | null;
  tokensPrompt: number;
  tokensCompletion: number;
  tokensCacheRead: number;
  tokensCacheWrite: number;
  tokensReasoning: number;
  costNanos: bigint;
  costBreakdown: Record<string, string> | null;
  latencyMs: number | null;
  firstTokenMs: number | null;
  attempts: unknown[];
  httpReferer: string | null;
  xTitle: string | null;
  endUser: string | null;
  createdAt: string;
  /** Served from the response cache (no upstream call); absent means false. */
  cacheHit?: boolean;
  /** A later model turn of a request that runs MCP tools: the first turn's generation id (docs/tools.md); absent: none. */
  parentId?: string | null;
  /** The MCP calls whose results this turn was given (server, tool, duration, status; never arguments nor results); absent: none. */
  toolCalls?: ToolCallRecord[] | null;
  /** Served with the account's own provider key (docs/byok.md), charged the BYOK fee; absent means false. */
  byok?: boolean;
  /** The account's guardrail rules that fired on the request (name, detector, action; never the matched text); absent: none. */
  guardrails?: GuardrailHitRecord[] | null;
}

/** A guardrail rule that fired on a request, as its generation record keeps it (docs/governance.md#guardrails). */
export interface GuardrailHitRecord {
  name: string;
  detector: string;
  action: 'block' | 'redact';
}

/** One MCP call the gateway ran, as its generation record keeps it. */
export interface ToolCallRecord {
  server: string;
  tool: string;
  ms: number;
  /** `ok`, `tool_error` (the tool said it failed), or why the call failed (`timeout`, `too_large`, `unreachable`, ...). */
  status: string;
}

/** Reads over generation records (usage statistics, the generation lookup). */
export class GenerationStore {
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.stmts = {
      keyWindow: db.prepare(`SELECT coalesce(sum(cost_nanos), 0) AS cost, count(*) AS n
        FROM generation_records WHERE key_ref = (SELECT id FROM record_names WHERE name = ?) AND created_ms >= ?`),
      byId: db.prepare('SELECT * FROM generations WHERE id = ?'),
    };
    this.stmts.keyWindow.setReadBigInts(true);
    this.stmts.byId.setReadBigInts(true);
  }

  keyUsageSince(keyHash: string, sinceIso: string): UsageWindow {
    const row = this.stmts.keyWindow.get(keyHash, Date.parse(sinceIso)) as { cost: bigint; n: bigint };
    return { costNanos: row.cost, requests: Number(row.n) };
  }

  getRecord(id: string): GenerationRecord | undefined {
    const r = this.stmts.byId.get(id) as Record<string, bigint | string | null> | undefined;
    return r === undefined ? undefined : toGenerationRecord(r);
  }
}

/** A row of the `generations` view (integers as bigint) as a GenerationRecord. */
export function toGenerationRecord(r: Record<string, bigint | string | null>): GenerationRecord {
  const n = (v: unknown): number => Number(v ?? 0);
  const opt = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  const record: GenerationRecord = {
    id: String(r.id), accountId: String(r.account_id), keyHash: String(r.key_hash),
    model: s(r.model), provider: s(r.provider), upstreamModel: s(r.upstream_model), upstreamId: s(r.upstream_id),
    dialect: String(r.endpoint_dialect), streamed: r.streamed === 1n, cancelled: r.cancelled === 1n,
    status: r.status === 'success' ? 'success' : 'error', errorCode: s(r.error_code), finishReason: s(r.finish_reason), nativeFinishReason: s(r.native_finish_reason),
    tokensPrompt: n(r.tokens_prompt), tokensCompletion: n(r.tokens_completion), tokensCacheRead: n(r.tokens_cache_read),
    tokensCacheWrite: n(r.tokens_cache_write), tokensReasoning: n(r.tokens_reasoning),
    costNanos: (r.cost_nanos as bigint | null) ?? 0n,
    costBreakdown: decodeBreakdown(r.cost_breakdown === null ? null : String(r.cost_breakdown)),
    latencyMs: opt(r.latency_ms), firstTokenMs: opt(r.first_token_ms),
    attempts: r.attempts === null ? [] : (JSON.parse(String(r.attempts)) as unknown[]),
    httpReferer: s(r.http_referer), xTitle: s(r.x_title), endUser: s(r.end_user), createdAt: String(r.created_at),
    cacheHit: r.cache_hit === 1n,
    ...(r.byok === 1n ? { byok: true } : {}),
  };
  // Only MCP turns have them (migration 18): other records read back as they were written.
  if (r.parent_id !== null && r.parent_id !== undefined) record.parentId = String(r.parent_id);
  if (r.tool_calls !== null && r.tool_calls !== undefined) record.toolCalls = JSON.parse(String(r.tool_calls)) as ToolCallRecord[];
  // Only requests on which an account's guardrail fired have them (migration 26).
  if (r.guardrails !== null && r.guardrails !== undefined) record.guardrails = JSON.parse(String(r.guardrails)) as GuardrailHitRecord[];
  return record;
}
