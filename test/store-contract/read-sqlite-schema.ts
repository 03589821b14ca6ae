import type { DatabaseSync } from 'node:sqlite';
import {
  closingParen,
  normalizeExpression,
  sqliteType,
  type ForeignKeyShape,
  type IndexShape,
  type SchemaShape,
  type TableShape,
} from './schema-shape.ts';

// A migrated SQLite database's schema in the shape of schema-shape.ts, read through
// sqlite_master and PRAGMA table_info / index_list / index_info / foreign_key_list.
// CHECK constraints have no pragma: they are read from the CREATE TABLE text.

export function readSqliteSchema(db: DatabaseSync): SchemaShape {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as Array<{ name: string; sql: string }>;
  const shape: SchemaShape = {};
  for (const { name, sql } of tables) shape[name] = readTable(db, name, sql);
  return shape;
}

function readTable(db: DatabaseSync, table: string, sql: string): TableShape {
  const info = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Array<{
    name: string;
    type: string;
    notnull: number;
    dflt_value: string | null;
    pk: number;
  }>;
  const primaryKey = info
    .filter((c) => c.pk > 0)
    .sort((x, y) => x.pk - y.pk)
    .map((c) => c.name);
  const withoutRowid = /\bWITHOUT\s+ROWID\b/i.test(sql);
  // INTEGER PRIMARY KEY of a rowid table is the rowid: filled by SQLite, never NULL.
  const rowidAlias =
    !withoutRowid && primaryKey.length === 1
      ? info.find((c) => c.name === primaryKey[0] && c.type.toUpperCase() === 'INTEGER')?.name
      : undefined;
  const columns = info.map((c) => ({
    name: c.name,
    type: sqliteType(c.type),
    notNull: c.notnull === 1 || c.name === rowidAlias,
    default: c.name === rowidAlias ? '<generated>' : c.dflt_value === null ? null : normalizeExpression(c.dflt_value),
  }));
  const uniques: string[][] = [];
  const indexes: IndexShape[] = [];
  for (const idx of db.prepare(`PRAGMA index_list(${quote(table)})`).all() as Array<{
    name: string;
    unique: number;
    origin: string;
    partial: number;
  }>) {
    const cols = (db.prepare(`PRAGMA index_info(${quote(idx.name)})`).all() as Array<{ seqno: number; name: string | null }>)
      .sort((x, y) => x.seqno - y.seqno)
      .map((c) => c.name ?? '<expression>');
    if (idx.origin === 'pk') continue;
    if (idx.origin === 'u') {
      uniques.push(cols);
      continue;
    }
    const text = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(idx.name) as { sql: string }).sql;
    const where = idx.partial === 1 ? normalizeExpression(/\bWHERE\b([\s\S]*)$/i.exec(text)?.[1] ?? '') : null;
    indexes.push({ name: idx.name, columns: cols, unique: idx.unique === 1, where });
  }
  const triggers = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name").all(table) as Array<{ name: string }>
  ).map((r) => r.name);
  return { columns, primaryKey, uniques, foreignKeys: foreignKeys(db, table), checks: checks(sql), indexes, triggers };
}

function foreignKeys(db: DatabaseSync, table: string): ForeignKeyShape[] {
  const rows = db.prepare(`PRAGMA foreign_key_list(${quote(table)})`).all() as Array<{
    id: number;
    seq: number;
    table: string;
    from: string;
    to: string | null;
    on_update: string;
    on_delete: string;
  }>;
  const byId = new Map<number, typeof rows>();
  for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
  return [...byId.values()].map((parts) => {
    const p = parts.sort((x, y) => x.seq - y.seq);
    return {
      columns: p.map((r) => r.from),
      refTable: p[0]!.table,
      refColumns: p.map((r) => r.to ?? '<primary key>'),
      onUpdate: p[0]!.on_update.toLowerCase(),
      onDelete: p[0]!.on_delete.toLowerCase(),
    };
  });
}

/** The CHECK (...) expressions of a CREATE TABLE text (comments dropped first). */
function checks(sql: string): string[] {
  const text = sql.replace(/--[^\n]*/g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/\bCHECK\s*\(/gi)) {
    const open = m.index + m[0].length - 1;
    const close = closingParen(text, open);
    if (close > open) out.push(normalizeExpression(text.slice(open + 1, close)));
  }
  return out;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
