import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/load-config.ts';

// docs/configuration.md against the config loader: every field its tables name is one the
// loader accepts, every field the loader accepts is documented, and the defaults the
// "Top-level fields" table states are the loader's. The loader says which fields it accepts
// when it meets an unknown one ("Known fields of server: host, port, ..."): that list is
// the truth the tables are held to.

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');

/** The fields the loader accepts in the mapping at `yaml`'s ZZ (a probe field put there). */
function accepted(yaml: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-doc-config-'));
  try {
    const file = join(dir, 'switchyard.yaml');
    writeFileSync(file, yaml.replace('ZZ', 'zz_probe: 1'));
    try {
      loadConfig({ path: file, env: {} });
    } catch (err) {
      const m = /unknown field "zz_probe"\. (?:Did you mean "[^"]+"\? )?Known fields[^:]*: (.*)$/.exec((err as Error).message);
      if (m !== null) return m[1]!.split(', ');
      throw err;
    }
    throw new Error(`the loader accepted an unknown field in ${yaml}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first-column names of the table under `heading` (each backticked name of the cell). */
function tableNames(heading: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/configuration.md has "${heading}"`);
  const rest = doc.slice(start + heading.length + 2);
  const lines = rest.split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const names: string[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cell = line.split('|')[1]!;
    for (const m of cell.matchAll(/`([^`]+)`/g)) names.push(m[1]!);
  }
  return names;
}

/** The rows of the "Top-level fields" table: field, default cell. */
function topLevelRows(): Array<{ field: string; def: string }> {
  const start = doc.indexOf('\n## Top-level fields\n');
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: Array<{ field: string; def: string }> = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((c) => c.trim());
    rows.push({ field: /`([^`]+)`/.exec(cells[1]!)![1]!, def: cells[3]! });
  }
  return rows;
}

const SECTIONS = [
  'server',
  'database',
  'redis',
  'timeouts',
  'bootstrap',
  'accounts',
  'metrics',
  'cache',
  'sticky',
  'pdf',
  'records',
  'webhooks',
  'search',
  'mcp',
  'smtp',
  'oidc',
  'byok',
  'alerts',
  'retention',
];
const MODEL = 'models: [{id: a/b, context_length: 10, endpoints: [{provider: sim, pricing: {prompt: "0", completion: "0"}}]}]';

test('the "Top-level fields" table names exactly the fields the loader accepts at the top and in its sections', () => {
  const documented = topLevelRows().map((r) => r.field);
  const expected = accepted('ZZ').flatMap((top) => (SECTIONS.includes(top) ? accepted(`${top}: {ZZ}`).map((f) => `${top}.${f}`) : [top]));
  assert.deepEqual([...documented].sort(), [...expected].sort());
});

test('the Providers, Models, Endpoints and Pricing tables name exactly the fields the loader accepts there', () => {
  const cases: Array<[string, string]> = [
    ['## Providers', 'providers: [{ZZ}]'],
    ['## Models', 'models: [{ZZ}]'],
    ['### Endpoints', 'models: [{id: a/b, context_length: 10, endpoints: [{ZZ}]}]'],
    ['### Pricing', 'models: [{id: a/b, context_length: 10, endpoints: [{provider: sim, pricing: {ZZ}}]}]'],
  ];
  for (const [heading, yaml] of cases) {
    assert.deepEqual(tableNames(heading).sort(), accepted(yaml).sort(), heading);
  }
  assert.ok(accepted(MODEL.replace('prompt: "0"', 'ZZ, prompt: "0"')).includes('cache_read'));
});

test('every field of tiers and moderation the loader accepts is named in docs/configuration.md', () => {
  const named = new Set([...doc.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
  for (const yaml of ['tiers: {free: {ZZ}}', 'moderation: {ZZ}']) {
    const missing = accepted(yaml).filter((f) => !named.has(f));
    assert.deepEqual(missing, [], yaml);
  }
});

test('the defaults the "Top-level fields" table states are the loader\'s', () => {
  const config = loadConfig({ env: {} }) as unknown as Record<string, unknown>;
  const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  let compared = 0;
  for (const { field, def } of topLevelRows()) {
    const value = field.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[camel(k)], config);
    // A mapping (tiers, moderation, cache's hit price) is described in words, not compared here.
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) continue;
    if (/^none\b/.test(def)) {
      assert.ok(value === undefined || value === null, `${field}: documented none, the loader has ${JSON.stringify(value)}`);
      compared++;
      continue;
    }
    const stated = /^`([^`]+)`/.exec(def)?.[1]?.replace(/^"(.*)"$/, '$1');
    // A default applied where the field is used (absent from the loaded config), or not a plain value: not comparable here.
    if (stated === undefined || value === undefined) continue;
    assert.equal(Array.isArray(value) ? JSON.stringify(value) : String(value), stated, `${field}: the documented default`);
    compared++;
  }
  assert.ok(compared >= 25, `${compared} defaults compared`);
});

/** The text of every non-test source file under `dir`. */
function sources(dir: string): string {
  let out = '';
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out += sources(path);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out += readFileSync(path, 'utf8');
  }
  return out;
}

/** Set by the gateway for its own worker processes (serve --workers), not by operators. */
const INTERNAL_ENV = new Set(['SWITCHYARD_WORKER_COUNT', 'SWITCHYARD_WORKER_SLOT', 'PATH']);

test('the environment variables docs/configuration.md names are read, and every one the sources read is documented', () => {
  const src = sources(join(root, 'src'));
  const start = doc.indexOf('\n## Environment variables\n');
  const table = doc.slice(start, doc.indexOf('\n## ', start + 5));
  const named = [...new Set([...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!))];
  assert.ok(named.length > 15);
  // Some OTEL_* are read by the OpenTelemetry exporter itself, from the same environment.
  const exporter = readFileSync(
    join(root, 'node_modules/@opentelemetry/otlp-exporter-base/dist/platform/node/configuration/otlp-node-http-env-configuration.mjs'),
    'utf8',
  );
  const unread = named.filter((v) => !src.includes(v) && !(v.startsWith('OTEL_') && exporter.includes(v)));
  assert.deepEqual(unread, [], 'documented but never read');

  const allDocs = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)]
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(join(root, f), 'utf8'))
    .join('\n');
  const read = new Set([...src.matchAll(/env(?:\?)?\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)['"]\]/g)].map((m) => m[1] ?? m[2]!));
  const undocumented = [...read].filter((v) => !INTERNAL_ENV.has(v) && !allDocs.includes(`\`${v}`));
  assert.deepEqual(undocumented, [], 'read but documented nowhere');
});

test("the provider kinds docs/configuration.md lists are the loader's, and each has its adapter", async () => {
  const { PROVIDER_KINDS } = await import('../../src/config/provider-kinds.ts');
  const { builtinAdapters } = await import('../../src/providers/registry.ts');
  const row = doc.split('\n').find((l) => l.startsWith('| `kind` |'))!;
  const listed = [...row.split('|')[2]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!);
  assert.deepEqual([...listed].sort(), [...PROVIDER_KINDS].sort());
  const adapters = builtinAdapters();
  assert.deepEqual(
    PROVIDER_KINDS.filter((k) => !adapters.has(k)),
    [],
    'every kind has its adapter, as the doc says',
  );
});
