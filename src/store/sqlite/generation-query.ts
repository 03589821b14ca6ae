import type { DatabaseSync } from 'node:sqlite';
import { type GenerationFilter, msOrNull } from '../generation-records.ts';

/** Ids of generation records matching a filter, newest first (read each with GenerationStore.getRecord). */
export class GenerationQuery {
  private readonly stmt;

  constructor(db: DatabaseSync) {
    this.stmt = db.prepare(`SELECT id FROM generations
      WHERE (?1 IS NULL OR account_ref = (SELECT id FROM record_names WHERE name = ?1))
        AND (?2 IS NULL OR key_ref = (SELECT id FROM record_names WHERE name = ?2))
        AND (?3 IS NULL OR model_ref = (SELECT id FROM record_names WHERE name = ?3))
        AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR created_ms >= ?5) AND (?6 IS NULL OR created_ms < ?6)
      ORDER BY created_ms DESC, seq DESC LIMIT ?7`);
  }

  ids(f: GenerationFilter): string[] {
    const rows = this.stmt.all(
      f.accountId ?? null,
      f.keyHash ?? null,
      f.model ?? null,
      f.status ?? null,
      msOrNull(f.since),
      msOrNull(f.until),
      f.limit,
    );
    return (rows as Array<{ id: string }>).map((r) => r.id);
  }
}
