// How a generation record is stored (`generation_records`, migration 11): one row of small
// numbers, strings that repeat (account, key hash, model, provider, app title, codes) as
// ids of `record_names`, the time as Unix milliseconds, and only what cannot be derived:
//
// - the provider attempts: one that answered 200 for the record's own model and provider
//   (almost every request) is its endpoint and duration (`endpoint_ref`, `upstream_ms`);
//   the JSON list is kept only when there were several attempts or one failed;
// - the cost breakdown: its six line items as a JSON array of their decimal texts, in the
//   order of BREAKDOWN_KEYS (an object with other items, e.g. `written_off`, is kept as is).
//
// Both engines write and read records through this module and the `generations` view (the
// record as it was, names and ISO times included). A new column (e.g. units of a new kind of
// request): a migration on both engines adds it to generation_records (a small integer,
// NULL when absent, costs a byte or nothing) and recreates the view with it; then add it to
// STORED_COLUMNS, PG_COLUMN_TYPES and storedValues here, and read it in toGenerationRecord
// below: the record's fields, their type, writing and reading are in this one file. (The record itself is
// built by pipeline/generation-record.ts and shown by server/routes/generation-view.ts.)

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

/** The cost breakdown's line items, in the order of their stored array. */
export const BREAKDOWN_KEYS = ['prompt', 'completion', 'cache_read', 'cache_write', 'request', 'image'] as const;

/** A stored column: its name and whether it holds a `record_names` id. */
export const STORED_COLUMNS = [
  'id',
  'created_ms',
  'account_ref',
  'key_ref',
  'model_ref',
  'provider_ref',
  'upstream_model_ref',
  'upstream_id',
  'dialect_ref',
  'streamed',
  'cancelled',
  'cache_hit',
  'is_error',
  'error_code_ref',
  'finish_reason_ref',
  'native_finish_reason_ref',
  'tokens_prompt',
  'tokens_completion',
  'tokens_cache_read',
  'tokens_cache_write',
  'tokens_reasoning',
  'cost_nanos',
  'cost_breakdown',
  'latency_ms',
  'first_token_ms',
  'endpoint_ref',
  'upstream_ms',
  'attempts',
  'http_referer_ref',
  'app_title_ref',
  'end_user',
  'parent_id',
  'tool_calls',
  'byok',
  'guardrails',
] as const;

/** The Postgres type of each stored column, for its array parameter (postgres/postgres-settlement.ts): a column added above fails to compile until it has one. */
export const PG_COLUMN_TYPES: Readonly<Record<(typeof STORED_COLUMNS)[number], string>> = {
  id: 'text',
  created_ms: 'bigint',
  account_ref: 'integer',
  key_ref: 'integer',
  model_ref: 'integer',
  provider_ref: 'integer',
  upstream_model_ref: 'integer',
  upstream_id: 'text',
  dialect_ref: 'integer',
  streamed: 'smallint',
  cancelled: 'smallint',
  cache_hit: 'smallint',
  is_error: 'smallint',
  error_code_ref: 'integer',
  finish_reason_ref: 'integer',
  native_finish_reason_ref: 'integer',
  tokens_prompt: 'integer',
  tokens_completion: 'integer',
  tokens_cache_read: 'integer',
  tokens_cache_write: 'integer',
  tokens_reasoning: 'integer',
  cost_nanos: 'bigint',
  cost_breakdown: 'text',
  latency_ms: 'integer',
  first_token_ms: 'integer',
  endpoint_ref: 'integer',
  upstream_ms: 'integer',
  attempts: 'text',
  http_referer_ref: 'integer',
  app_title_ref: 'integer',
  end_user: 'text',
  parent_id: 'text',
  tool_calls: 'text',
  byok: 'smallint',
  guardrails: 'text',
};

export type StoredValue = string | number | bigint | null;

/** The strings of a record kept in `record_names` (null where absent). */
export function namesOf(r: GenerationRecord): Array<string | null> {
  const one = singleAttempt(r);
  return [
    r.accountId,
    r.keyHash,
    r.model,
    r.provider,
    r.upstreamModel,
    r.dialect,
    r.errorCode,
    r.finishReason,
    r.nativeFinishReason,
    one === null ? null : one.endpoint,
    r.httpReferer,
    r.xTitle,
  ];
}

/** A record as the values of STORED_COLUMNS; `ref` gives a name's id (every name of `namesOf` is known to it). */
export function storedValues(r: GenerationRecord, ref: (name: string | null) => number | null): StoredValue[] {
  const one = singleAttempt(r);
  return [
    r.id,
    isoToMs(r.createdAt),
    ref(r.accountId),
    ref(r.keyHash),
    ref(r.model),
    ref(r.provider),
    ref(r.upstreamModel),
    r.upstreamId,
    ref(r.dialect),
    r.streamed ? 1 : 0,
    r.cancelled ? 1 : 0,
    r.cacheHit === true ? 1 : 0,
    r.status === 'success' ? 0 : 1,
    ref(r.errorCode),
    ref(r.finishReason),
    ref(r.nativeFinishReason),
    r.tokensPrompt,
    r.tokensCompletion,
    r.tokensCacheRead,
    r.tokensCacheWrite,
    r.tokensReasoning,
    r.costNanos,
    encodeBreakdown(r.costBreakdown),
    r.latencyMs,
    r.firstTokenMs,
    one === null ? null : ref(one.endpoint),
    one === null ? null : one.ms,
    one === null && r.attempts.length > 0 ? JSON.stringify(r.attempts) : null,
    ref(r.httpReferer),
    ref(r.xTitle),
    r.endUser,
    r.parentId ?? null,
    r.toolCalls === undefined || r.toolCalls === null || r.toolCalls.length === 0 ? null : JSON.stringify(r.toolCalls),
    r.byok === true ? 1 : null,
    r.guardrails === undefined || r.guardrails === null || r.guardrails.length === 0 ? null : JSON.stringify(r.guardrails),
  ];
}

/** A row of the `generations` view (integers as bigint) as a GenerationRecord. */
export function toGenerationRecord(r: Record<string, bigint | string | null>): GenerationRecord {
  const n = (v: unknown): number => Number(v ?? 0);
  const opt = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const s = (v: bigint | string | null | undefined): string | null => (v === null || v === undefined ? null : String(v));
  const record: GenerationRecord = {
    id: String(r.id),
    accountId: String(r.account_id),
    keyHash: String(r.key_hash),
    model: s(r.model),
    provider: s(r.provider),
    upstreamModel: s(r.upstream_model),
    upstreamId: s(r.upstream_id),
    dialect: String(r.endpoint_dialect),
    streamed: r.streamed === 1n,
    cancelled: r.cancelled === 1n,
    status: r.status === 'success' ? 'success' : 'error',
    errorCode: s(r.error_code),
    finishReason: s(r.finish_reason),
    nativeFinishReason: s(r.native_finish_reason),
    tokensPrompt: n(r.tokens_prompt),
    tokensCompletion: n(r.tokens_completion),
    tokensCacheRead: n(r.tokens_cache_read),
    tokensCacheWrite: n(r.tokens_cache_write),
    tokensReasoning: n(r.tokens_reasoning),
    costNanos: (r.cost_nanos as bigint | null) ?? 0n,
    costBreakdown: decodeBreakdown(r.cost_breakdown === null ? null : String(r.cost_breakdown)),
    latencyMs: opt(r.latency_ms),
    firstTokenMs: opt(r.first_token_ms),
    attempts: r.attempts === null ? [] : (JSON.parse(String(r.attempts)) as unknown[]),
    httpReferer: s(r.http_referer),
    xTitle: s(r.x_title),
    endUser: s(r.end_user),
    createdAt: String(r.created_at),
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

interface SingleAttempt {
  endpoint: string;
  ms: number;
}

/** The record's only attempt when it is stored as its endpoint and duration (see above), else null. */
function singleAttempt(r: GenerationRecord): SingleAttempt | null {
  if (r.attempts.length !== 1) return null;
  const a = r.attempts[0] as Record<string, unknown>;
  const keys = Object.keys(a);
  if (keys.length !== 6 || keys.join() !== 'model,provider,endpoint,status,errorCode,ms') return null;
  if (a.status !== 200 || a.errorCode !== null || a.model !== r.model || a.provider !== r.provider) return null;
  if (typeof a.endpoint !== 'string' || !Number.isSafeInteger(a.ms)) return null;
  return { endpoint: a.endpoint, ms: a.ms as number };
}

/** The one attempt stored as endpoint and duration, as the record held it. */
export function attemptOf(model: string | null, provider: string | null, endpoint: string, ms: number): Record<string, unknown> {
  return { model, provider, endpoint, status: 200, errorCode: null, ms };
}

export function encodeBreakdown(b: Record<string, string> | null): string | null {
  if (b === null) return null;
  const keys = Object.keys(b);
  if (keys.length !== BREAKDOWN_KEYS.length || keys.some((k, i) => k !== BREAKDOWN_KEYS[i] || typeof b[k] !== 'string'))
    return JSON.stringify(b);
  return JSON.stringify(BREAKDOWN_KEYS.map((k) => b[k]));
}

export function decodeBreakdown(text: string | null): Record<string, string> | null {
  if (text === null) return null;
  const v = JSON.parse(text) as unknown;
  if (!Array.isArray(v)) return v as Record<string, string>;
  const out: Record<string, string> = {};
  BREAKDOWN_KEYS.forEach((k, i) => {
    out[k] = String(v[i] ?? '0');
  });
  return out;
}

/** ISO 8601 text → Unix milliseconds (throws on text that is not an instant). */
export function isoToMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not an ISO 8601 instant: ${iso}`);
  return ms;
}

export function msToIso(ms: number | bigint): string {
  return new Date(Number(ms)).toISOString();
}
