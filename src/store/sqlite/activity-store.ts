import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type ActivityFilter,
  type ActivityCursor,
  type ActivityRow,
  LIST_COLUMNS,
  FILTER_COLUMNS,
  filterClause,
  AFTER_CURSOR,
  NEWEST_FIRST,
} from '../activity-records.ts';

// The generation list (the admin API's generations, an account's activity): filters and
// keyset pagination, newest first. Read through the `generations` view, filtered and ordered
// on its stored columns (created_ms, seq, *_ref: generation-row.ts), so that the indexes
// generation_records_created, _account, _key and _model are walked, newest first. The cursor
// is the last row's (created_at, id); its `seq` is looked up by id (the unique index).

export class ActivityStore {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** One record, in the list's shape. */
  get(id: string): ActivityRow | undefined {
    let stmt = this.statements.get('id');
    if (stmt === undefined) {
      stmt = this.db.prepare(`SELECT ${LIST_COLUMNS} FROM generations WHERE id = ?`);
      stmt.setReadBigInts(true);
      this.statements.set('id', stmt);
    }
    return stmt.get(id) as unknown as ActivityRow | undefined;
  }

  /**
   * Up to `limit` records matching the filter, newest first, after the cursor. `whole`: every
   * column of the `generations` view (a GenerationRecord's, for toGenerationRecord), not only the list's.
   */
  list(filter: ActivityFilter, limit: number, after: ActivityCursor | null, whole = false): ActivityRow[] {
    const where: string[] = [];
    const params: Array<string | number> = [];
    const shape: string[] = [];
    for (const [field, clause, param] of FILTER_COLUMNS) {
      const v = filter[field];
      if (v === undefined) continue;
      where.push(filterClause(field, clause, filter));
      params.push(param(v));
      shape.push(field);
    }
    if (after !== null) {
      where.push(AFTER_CURSOR);
      params.push(Date.parse(after.createdAt), after.id);
      shape.push('after');
    }
    params.push(limit);
    if (whole) shape.push('whole');
    const key = shape.join(',');
    let stmt = this.statements.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare(`SELECT ${whole ? '*' : LIST_COLUMNS} FROM generations
        ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ${NEWEST_FIRST} LIMIT ?`);
      stmt.setReadBigInts(true);
      this.statements.set(key, stmt);
    }
    return stmt.all(...params) as unknown as ActivityRow[];
  }
}
