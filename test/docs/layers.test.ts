import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// docs/architecture.md's `layers` block is the one statement of the order; this test holds
// every import under src/ to it.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/** Folder → rank (0 at the bottom), from the `layers` block, top line first. */
function documentedRanks(): Map<string, number> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /^```layers\n([\s\S]*?)^```/m.exec(doc);
  assert.ok(block, 'docs/architecture.md has a ```layers block');
  const lines = block[1]!.split('\n').map((l) => l.trim()).filter((l) => l !== '');
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

test('every folder of src/ has a place in the documented layers', () => {
  const ranks = documentedRanks();
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => !ranks.has(f)), [], 'folders missing from docs/architecture.md');
  assert.deepEqual([...ranks.keys()].filter((f) => !folders.includes(f)), [], 'layers that are no folder of src/');
});

test('no file under src/ imports upward, sideways or from test/', () => {
  const ranks = documentedRanks();
  const files = sourceFiles(SRC);
  assert.ok(files.length > 100, `read ${files.length} files under src/`);
  assert.deepEqual(files.flatMap((file) => violationsIn(ranks, file, readFileSync(file, 'utf8'))), []);
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
