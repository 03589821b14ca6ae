import type pg from 'pg';
import { normalizeExpression, postgresType, type SchemaShape, type TableShape } from './schema-shape.ts';

// A migrated Postgres database's schema (schema `public`) in the shape of schema-shape.ts,
// read through information_schema.columns and pg_catalog (pg_constraint, pg_index, pg_trigger).

const ACTIONS: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

export async function readPostgresSchema(pool: pg.Pool): Promise<SchemaShape> {
  const shape: SchemaShape = {};
  const table = (name: string): TableShape =>
    (shape[name] ??= { columns: [], primaryKey: [], uniques: [], foreignKeys: [], checks: [], indexes: [], triggers: [] });
  const columns = await pool.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
    is_identity: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const c of columns.rows) {
    table(c.table_name).columns.push({
      name: c.column_name,
      type: postgresType(c.data_type),
      notNull: c.is_nullable === 'NO',
      default: c.is_identity === 'YES' ? '<generated>' : c.column_default === null ? null : normalizeExpression(c.column_default),
    });
  }
  const constraints = await pool.query<{
    tbl: string;
    contype: string;
    cols: string[];
    ref_table: string | null;
    ref_cols: string[];
    upd: string;
    del: string;
    def: string;
  }>(
    `SELECT t.relname AS tbl, c.contype,
            array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS cols,
            f.relname AS ref_table,
            array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                  JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS ref_cols,
            c.confupdtype AS upd, c.confdeltype AS del, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       LEFT JOIN pg_class f ON f.oid = c.confrelid
      WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f', 'c')`,
  );
  for (const c of constraints.rows) {
    const t = table(c.tbl);
    if (c.contype === 'p') t.primaryKey = c.cols;
    else if (c.contype === 'u') t.uniques.push(c.cols);
    else if (c.contype === 'f')
      t.foreignKeys.push({
        columns: c.cols,
        refTable: c.ref_table!,
        refColumns: c.ref_cols,
        onUpdate: ACTIONS[c.upd] ?? c.upd,
        onDelete: ACTIONS[c.del] ?? c.del,
      });
    else t.checks.push(normalizeExpression(c.def.replace(/^CHECK\s*/i, '')));
  }
  const indexes = await pool.query<{ tbl: string; name: string; unique: boolean; cols: string[]; pred: string | null }>(
    `SELECT t.relname AS tbl, i.relname AS name, x.indisunique AS unique,
            array(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) k ORDER BY k) AS cols,
            pg_get_expr(x.indpred, x.indrelid) AS pred
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u'))`,
  );
  for (const i of indexes.rows) {
    table(i.tbl).indexes.push({
      name: i.name,
      columns: i.cols,
      unique: i.unique,
      where: i.pred === null ? null : normalizeExpression(i.pred),
    });
  }
  const triggers = await pool.query<{ tbl: string; name: string }>(
    `SELECT c.relname AS tbl, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal`,
  );
  for (const t of triggers.rows) table(t.tbl).triggers.push(t.name);
  return shape;
}
