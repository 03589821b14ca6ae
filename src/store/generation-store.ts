import type { DatabaseSync } from 'node:sqlite';
import { toGenerationRecord } from './generation-row.ts';

export { toGenerationRecord } from './generation-row.ts';

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
