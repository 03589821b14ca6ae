import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// docs/architecture.md's `layers` block is the one statement of the order; this test holds
// every import under src/ to it.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

function layersBlock(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /^```layers\n([\s\S]*?)^```/m.exec(doc);
  assert.ok(block, 'docs/architecture.md has a ```layers block');
  return block[1]!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** Folder → rank (0 at the bottom), from the `layers` block, top line first (its `←` lines are no layers). */
function documentedRanks(): Map<string, number> {
  const lines = layersBlock().filter((l) => !l.includes('←'));
  const ranks = new Map<string, number>();
  lines.forEach((line, i) => {
    for (const folder of line.split(',').map((f) => f.trim())) {
      assert.ok(!ranks.has(folder), `${folder} is listed twice`);
      ranks.set(folder, lines.length - 1 - i);
    }
  });
  return ranks;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(m[1]!);
  return found;
}

/** The imports of one file under `src/` that break the order, as `file: specifier (why)`. */
function violationsIn(ranks: ReadonlyMap<string, number>, file: string, text: string): string[] {
  const bad: string[] = [];
  const from = relative(SRC, file).split(sep)[0]!;
  for (const spec of relativeImports(text)) {
    const target = relative(SRC, resolve(dirname(file), spec));
    const where = `${relative(ROOT, file)}: ${spec}`;
    if (target.startsWith('..')) {
      bad.push(`${where} (leaves src/)`);
      continue;
    }
    const to = target.split(sep)[0]!;
    if (to === from) continue;
    const rf = ranks.get(from);
    const rt = ranks.get(to);
    if (rf === undefined || rt === undefined) bad.push(`${where} (${rf === undefined ? from : to} is not in the layers block)`);
    else if (rt >= rf) bad.push(`${where} (${from} may not import ${to})`);
  }
  return bad;
}

/**
 * The block's `a/b, c/d ← x/y.ts` lines: folders under src/ that no file outside their
 * top folder imports, but x/y.ts (the store's engines: only the file that opens the store
 * the configuration selects names one). Unit tests (`*.test.ts`, `*.test-util.ts`), which
 * run an engine on purpose, are not held to it.
 */
function documentedGates(): Array<{ folders: string[]; only: string }> {
  return layersBlock()
    .filter((l) => l.includes('←'))
    .map((l) => {
      const [folders, only] = l.split('←').map((s) => s.trim());
      return { folders: folders!.split(',').map((f) => f.trim()), only: only! };
    });
}

/** The imports of one file under `src/` that pass a gate they may not, as `file: specifier (why)`. */
function gateViolationsIn(gates: ReturnType<typeof documentedGates>, file: string, text: string): string[] {
  const from = relative(SRC, file).split(sep).join('/');
  if (/\.test(-util)?\.ts$/.test(from)) return [];
  const bad: string[] = [];
  for (const spec of relativeImports(text)) {
    const target = relative(SRC, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
    for (const gate of gates) {
      const folder = gate.folders.find((f) => target.startsWith(`${f}/`));
      if (folder === undefined || from === gate.only || from.split('/')[0] === folder.split('/')[0]) continue;
      bad.push(`${relative(ROOT, file)}: ${spec} (only ${gate.only} imports ${folder}/)`);
    }
  }
  return bad;
}

test('every folder of src/ has a place in the documented layers', () => {
  const ranks = documentedRanks();
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.deepEqual(
    folders.filter((f) => !ranks.has(f)),
    [],
    'folders missing from docs/architecture.md',
  );
  assert.deepEqual(
    [...ranks.keys()].filter((f) => !folders.includes(f)),
    [],
    'layers that are no folder of src/',
  );
});

test('no file under src/ imports upward, sideways or from test/', () => {
  const ranks = documentedRanks();
  const files = sourceFiles(SRC);
  assert.ok(files.length > 100, `read ${files.length} files under src/`);
  assert.deepEqual(
    files.flatMap((file) => violationsIn(ranks, file, readFileSync(file, 'utf8'))),
    [],
  );
});

test('the check catches an upward import, a peer import and an import of test/', () => {
  const ranks = documentedRanks();
  const probe = (path: string, text: string): string[] => violationsIn(ranks, join(SRC, path), text);
  assert.equal(probe('pipeline/x.ts', "import type { DialectName } from '../front/front-dialect.ts';").length, 1);
  assert.equal(probe('billing/x.ts', "import {\n  a,\n} from '../routing/x.ts';").length, 0, 'billing is above routing');
  assert.equal(probe('routing/x.ts', "export { a } from '../limits/x.ts';").length, 1, 'peers do not import each other');
  assert.equal(probe('providers/x/y.ts', "const m = await import('../../../test/emulators/e.ts');").length, 1);
  assert.equal(probe('server/x.ts', "import { a } from '../canonical/x.ts';").length, 0);
});

test('nothing outside store/ imports an engine folder but the one file that opens the configured store', () => {
  const gates = documentedGates();
  assert.deepEqual(gates, [{ folders: ['store/sqlite', 'store/postgres'], only: 'server/open-stores.ts' }]);
  for (const gate of gates) for (const f of gate.folders) assert.ok(existsSync(join(SRC, f)), `${f} is a folder of src/`);
  assert.ok(existsSync(join(SRC, gates[0]!.only)), `${gates[0]!.only} exists`);
  assert.deepEqual(
    sourceFiles(SRC).flatMap((file) => gateViolationsIn(gates, file, readFileSync(file, 'utf8'))),
    [],
  );
});

test('the engine check catches an engine named above store/, and lets the opener, the store and unit tests through', () => {
  const gates = documentedGates();
  const probe = (path: string, text: string): string[] => gateViolationsIn(gates, join(SRC, path), text);
  assert.equal(probe('billing/x.ts', "import type { ReservationStore } from '../store/sqlite/reservation-store.ts';").length, 1);
  assert.equal(probe('cli/x.ts', "const { m } = await import('../store/postgres/postgres-pool.ts');").length, 1);
  assert.equal(
    probe('server/routes/x.ts', "import { a } from '../../store/store-contract.ts';").length,
    0,
    'the contract is open to all above',
  );
  assert.equal(probe('server/open-stores.ts', "import { a } from '../store/postgres/postgres-stores.ts';").length, 0);
  assert.equal(probe('store/copy-to-postgres.ts', "import { a } from './sqlite/migrations.ts';").length, 0);
  assert.equal(probe('store/postgres/x.ts', "import { a } from '../sqlite/x.ts';").length, 0, 'inside store/: the engines are its own');
  assert.equal(probe('billing/x.test.ts', "import { a } from '../store/sqlite/x.ts';").length, 0);
});
