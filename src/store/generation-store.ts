import type { DatabaseSync } from 'node:sqlite';
import { toGenerationRecord, type GenerationRecord } from './generation-row.ts';

// The record's type lives with its row mapping (generation-row.ts): one file per record field.
export { toGenerationRecord } from './generation-row.ts';
export type { GenerationRecord, GuardrailHitRecord, ToolCallRecord } from './generation-row.ts';

export interface UsageWindow {
  costNanos: bigint;
  requests: number;
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
