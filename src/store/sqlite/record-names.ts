import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './open-database.ts';

/**
 * The ids of `record_names` (generation-row.ts) for the writer's connection, cached: a name
 * is never deleted nor renumbered, so an id once committed holds for good. Names not seen
 * yet are added in a transaction of their own before the settlement's, so that a settlement
 * rolled back never leaves the cache an id the database does not have (an unused name left
 * by one is harmless).
 */
export class RecordNames {
  private readonly db: DatabaseSync;
  private readonly ids = new Map<string, number>();
  /** Ids found inside a caller's transaction: used, not cached (it may still roll back). */
  private readonly uncommitted = new Map<string, number>();
  private readonly stmts;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.stmts = {
      add: db.prepare('INSERT INTO record_names (name) VALUES (?) ON CONFLICT (name) DO NOTHING'),
      get: db.prepare('SELECT id FROM record_names WHERE name = ?'),
    };
  }

  /** Makes sure every name has an id (one short transaction when some are new). */
  ensure(names: Iterable<string | null>): void {
    this.uncommitted.clear();
    let missing: string[] | null = null;
    for (const n of names) {
      if (n !== null && !this.ids.has(n)) (missing ??= []).push(n);
    }
    if (missing === null) return;
    missing = [...new Set(missing)].sort(); // in the order Postgres adds them (postgres-record-names.ts): the same ids
    const found = transaction(this.db, () =>
      missing.map((n) => {
        this.stmts.add.run(n);
        return [n, Number((this.stmts.get.get(n) as { id: number }).id)] as const;
      }),
    );
    const into = this.db.isTransaction ? this.uncommitted : this.ids;
    for (const [n, id] of found) into.set(n, id);
  }

  /** The id of a name `ensure` was given (null for null). */
  readonly ref = (name: string | null): number | null => {
    if (name === null) return null;
    const id = this.ids.get(name) ?? this.uncommitted.get(name);
    if (id === undefined) throw new Error(`record name not ensured: ${name}`);
    return id;
  };
}
