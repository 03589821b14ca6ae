// One engine-neutral shape of a migrated schema, so SQLite's and Postgres's can be compared
// table by table (schema-equality.test.ts). read-sqlite-schema.ts and read-postgres-schema.ts
// build it; `schemaDifferences` lists every difference as one line naming the table.
//
// Logical types (the engines' declared types mapped to a small set):
//   int64   SQLite INTEGER (always 64-bit)    Postgres bigint
//   int32   (none in SQLite)                  Postgres integer, smallint
//   text    SQLite TEXT                       Postgres text, character varying
//   real    SQLite REAL                       Postgres double precision, real
//   bytes   SQLite BLOB                       Postgres bytea
//   boolean (none in SQLite)                  Postgres boolean
//   timestamp (none in SQLite)                Postgres timestamp with time zone
//   anything else: `other:<declared type>`, which never equals the other engine's.
// A column the engine fills by itself (SQLite's INTEGER PRIMARY KEY of a rowid table, a
// Postgres identity column) has the default `<generated>`.

export interface ColumnShape {
  name: string;
  type: string;
  notNull: boolean;
  /** Normalized default expression, or null. */
  default: string | null;
}

export interface ForeignKeyShape {
  columns: string[];
  refTable: string;
  refColumns: string[];
  onUpdate: string;
  onDelete: string;
}

export interface IndexShape {
  name: string;
  columns: string[];
  unique: boolean;
  /** Normalized partial-index predicate, or null. */
  where: string | null;
}

export interface TableShape {
  columns: ColumnShape[];
  primaryKey: string[];
  /** Unique constraints (not unique indexes: those are in `indexes`), each a column list. */
  uniques: string[][];
  foreignKeys: ForeignKeyShape[];
  /** Normalized CHECK expressions. */
  checks: string[];
  indexes: IndexShape[];
  /** Trigger names. */
  triggers: string[];
}

export type SchemaShape = Record<string, TableShape>;

/** One difference: `key` is what an allowlist entry names; `message` says it in full. */
export interface SchemaDifference {
  key: string;
  message: string;
}

const SQLITE_TYPES: Record<string, string> = { INTEGER: 'int64', TEXT: 'text', REAL: 'real', BLOB: 'bytes' };
const POSTGRES_TYPES: Record<string, string> = {
  bigint: 'int64',
  integer: 'int32',
  smallint: 'int32',
  text: 'text',
  'character varying': 'text',
  'double precision': 'real',
  real: 'real',
  bytea: 'bytes',
  boolean: 'boolean',
  'timestamp with time zone': 'timestamp',
};

export function sqliteType(declared: string): string {
  return SQLITE_TYPES[declared.trim().toUpperCase()] ?? `other:${declared}`;
}

export function postgresType(dataType: string): string {
  return POSTGRES_TYPES[dataType] ?? `other:${dataType}`;
}

/** Lower case outside quoted strings, whitespace collapsed and dropped around ( ) , = */
function canonicalText(sql: string): string {
  return sql
    .split(/('(?:[^']|'')*')/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .toLowerCase()
            .replace(/\s+/g, ' ')
            .replace(/\s*([(),=])\s*/g, '$1'),
    )
    .join('')
    .trim();
}

/** Drops parentheses that wrap the whole expression. */
function unwrap(expr: string): string {
  let e = expr.trim();
  while (e.startsWith('(') && closingParen(e, 0) === e.length - 1) e = e.slice(1, -1).trim();
  return e;
}

/** Index of the parenthesis closing the one at `open` (quotes respected), or -1. */
export function closingParen(s: string, open: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * One form for an expression either engine printed: Postgres's casts (`'x'::text`) dropped,
 * its `col = ANY (ARRAY[...])` read back as `col IN (...)`, outer parentheses dropped.
 */
export function normalizeExpression(expr: string): string {
  const noCasts = expr.replace(/::[a-z ]+(\[\])?/gi, '');
  const asIn = noCasts.replace(/(\w+)\s*=\s*ANY\s*\(\s*ARRAY\s*\[([^\]]*)\]\s*\)/gi, '$1 IN ($2)');
  return unwrap(canonicalText(unwrap(asIn)));
}

const byName = <T extends { name: string }>(xs: T[]) => [...xs].sort((a, b) => a.name.localeCompare(b.name));
const sortedLists = (xs: string[][]) => xs.map((x) => x.join(', ')).sort();
const fkText = (f: ForeignKeyShape) =>
  `(${f.columns.join(', ')}) → ${f.refTable}(${f.refColumns.join(', ')}) on update ${f.onUpdate} on delete ${f.onDelete}`;
const indexText = (i: IndexShape) => `${i.unique ? 'unique ' : ''}(${i.columns.join(', ')})${i.where === null ? '' : ` where ${i.where}`}`;

/** Every difference between two schemas, SQLite's first; empty when they are equal. */
export function schemaDifferences(sqlite: SchemaShape, postgres: SchemaShape): SchemaDifference[] {
  const out: SchemaDifference[] = [];
  const tables = [...new Set([...Object.keys(sqlite), ...Object.keys(postgres)])].sort();
  for (const t of tables) {
    const a = sqlite[t];
    const b = postgres[t];
    if (a === undefined || b === undefined) {
      out.push({ key: `${t}`, message: `table ${t}: only in ${a === undefined ? 'Postgres' : 'SQLite'}` });
      continue;
    }
    out.push(...tableDifferences(t, a, b));
  }
  return out;
}

function tableDifferences(t: string, a: TableShape, b: TableShape): SchemaDifference[] {
  const out: SchemaDifference[] = [];
  const diff = (key: string, what: string, x: unknown, y: unknown) => {
    const [sx, sy] = [JSON.stringify(x), JSON.stringify(y)];
    if (sx !== sy) out.push({ key: `${t}.${key}`, message: `table ${t}: ${what}: SQLite ${sx}, Postgres ${sy}` });
  };
  const colsA = new Map(a.columns.map((c) => [c.name, c]));
  const colsB = new Map(b.columns.map((c) => [c.name, c]));
  for (const name of [...new Set([...colsA.keys(), ...colsB.keys()])].sort()) {
    const x = colsA.get(name);
    const y = colsB.get(name);
    if (x === undefined || y === undefined) {
      out.push({ key: `${t}.${name}`, message: `table ${t}: column ${name} only in ${x === undefined ? 'Postgres' : 'SQLite'}` });
      continue;
    }
    diff(`${name}.type`, `column ${name} type`, x.type, y.type);
    diff(`${name}.notNull`, `column ${name} NOT NULL`, x.notNull, y.notNull);
    diff(`${name}.default`, `column ${name} default`, x.default, y.default);
  }
  diff('primaryKey', 'primary key', a.primaryKey, b.primaryKey);
  diff('uniques', 'unique constraints', sortedLists(a.uniques), sortedLists(b.uniques));
  diff('foreignKeys', 'foreign keys', a.foreignKeys.map(fkText).sort(), b.foreignKeys.map(fkText).sort());
  diff('checks', 'check constraints', [...a.checks].sort(), [...b.checks].sort());
  const idxA = new Map(byName(a.indexes).map((i) => [i.name, indexText(i)]));
  const idxB = new Map(byName(b.indexes).map((i) => [i.name, indexText(i)]));
  for (const name of [...new Set([...idxA.keys(), ...idxB.keys()])].sort()) {
    const [x, y] = [idxA.get(name), idxB.get(name)];
    if (x === undefined || y === undefined) {
      out.push({
        key: `${t}.index ${name}`,
        message: `table ${t}: index ${name} ${x ?? y} only in ${x === undefined ? 'Postgres' : 'SQLite'}`,
      });
    } else {
      diff(`index ${name}`, `index ${name}`, x, y);
    }
  }
  diff('triggers', 'triggers', [...a.triggers].sort(), [...b.triggers].sort());
  return out;
}
