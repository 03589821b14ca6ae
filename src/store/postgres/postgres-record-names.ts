import type pg from 'pg';
import { postgresUnavailable } from './postgres-pool.ts';

/**
 * record-names.ts for Postgres: the ids of `record_names`, cached (never deleted nor
 * renumbered). Names not seen yet are added on the pool, committed on their own before the
 * settlement's transaction, so a batch rolled back never leaves the cache an id the
 * database does not have; instances adding the same name at once get the same id.
 */
export class PostgresRecordNames {
  private readonly pool: pg.Pool;
  private readonly ids = new Map<string, number>();

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async ensure(names: Iterable<string | null>): Promise<void> {
    const missing = new Set<string>();
    for (const n of names) if (n !== null && !this.ids.has(n)) missing.add(n);
    if (missing.size === 0) return;
    const list = [...missing].sort();
    try {
      // Sorted, so that two instances adding the same names lock them in the same order.
      await this.pool.query('INSERT INTO record_names (name) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (name) DO NOTHING', [list]);
      const rows = (
        await this.pool.query<{ id: number; name: string }>('SELECT id, name FROM record_names WHERE name = ANY($1::text[])', [list])
      ).rows;
      for (const r of rows) this.ids.set(r.name, Number(r.id));
    } catch (err) {
      throw postgresUnavailable(err);
    }
  }

  readonly ref = (name: string | null): number | null => {
    if (name === null) return null;
    const id = this.ids.get(name);
    if (id === undefined) throw new Error(`record name not ensured: ${name}`);
    return id;
  };
}
