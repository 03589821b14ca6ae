import type { DatabaseSync } from 'node:sqlite';

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
        FROM generations WHERE key_hash = ? AND created_at >= ?`),
      get: db.prepare('SELECT * FROM generations WHERE id = ?'),
    };
    this.stmts.keyWindow.setReadBigInts(true);
  }

  keyUsageSince(keyHash: string, sinceIso: string): UsageWindow {
    const row = this.stmts.keyWindow.get(keyHash, sinceIso) as { cost: bigint; n: bigint };
    return { costNanos: row.cost, requests: Number(row.n) };
  }

  get(id: string): Record<string, unknown> | undefined {
    return this.stmts.get.get(id) as Record<string, unknown> | undefined;
  }
}
