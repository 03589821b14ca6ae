import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Every file or folder README.md and docs/*.md name exists: a path in backticks
// (`src/billing/credit-holds.ts`, `store/postgres/`) or a relative link; and every path the
// comments of the container and npm files name (Dockerfile, docker-compose.yml, ...). A name given
// relative to a source folder (`billing/credit-holds.ts` in architecture.md) counts when
// it is under src/ or one of its folders. Generated places (.gitignore's: data/, dist/,
// bench/results/, test-artifacts/) are not looked for.

const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Paths that name another package's file, with where it is. */
const ELSEWHERE: Record<string, string> = {
  'build/start-server.js': 'node_modules/@portkey-ai/gateway/build/start-server.js',
};

const generated = [
  ...readFileSync(join(root, '.gitignore'), 'utf8').split('\n'),
  ...readFileSync(join(root, 'bench', '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => (l.startsWith('#') || l.trim() === '' ? l : `bench/${l}`)),
]
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#') && !l.includes('*'))
  .map((l) => l.replace(/^\//, ''));

const srcFolders = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `src/${e.name}`);

/** A path-like word: folders and a file with an extension, or a folder with its trailing slash. */
function looksLikePath(word: string): boolean {
  if (!/^(\.\/)?[\w.@-]+(\/[\w.@-]+)*\/?$/.test(word) || !word.includes('/')) return false;
  if (/^\.?\/?[\w.@-]+\/$/.test(word)) return false; // one bare folder name (`openai/`): a table's row, relative to its heading
  return /\.(ts|tsx|mjs|js|json|md|ya?ml|css|html|txt)$/.test(word) || word.endsWith('/');
}

function exists(doc: string, path: string): boolean {
  const p = path.replace(/^\.\//, '');
  if (generated.some((g) => p === g || p.startsWith(g.endsWith('/') ? g : `${g}/`))) return true;
  if (ELSEWHERE[p] !== undefined) return existsSync(join(root, ELSEWHERE[p]));
  return [p, join(dirname(doc), p), `src/${p}`, ...srcFolders.map((f) => `${f}/${p}`)].some((c) => existsSync(join(root, c)));
}

test('every path README.md and docs/*.md name exists', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const doc of docs) {
    const text = readFileSync(join(root, doc), 'utf8');
    const named = new Set<string>();
    for (const m of text.matchAll(/`([^`\s]+)`/g)) if (looksLikePath(m[1]!)) named.add(m[1]!);
    for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(m[1]!)) continue; // a URL
      if (!existsSync(join(root, dirname(doc), m[1]!))) missing.push(`${doc}: link ${m[1]}`);
      checked++;
    }
    for (const path of named) {
      checked++;
      if (!exists(doc, path)) missing.push(`${doc}: ${path}`);
    }
  }
  assert.ok(checked > 200, `${checked} paths checked`);
  assert.deepEqual(missing, []);
});

test('every path the comments of Dockerfile, docker-compose.yml, .dockerignore and .npmrc name exists', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const file of ['Dockerfile', 'docker-compose.yml', '.dockerignore', '.npmrc']) {
    const comments = readFileSync(join(root, file), 'utf8')
      .split('\n')
      .filter((l) => /^\s*#/.test(l))
      .join('\n');
    for (const raw of comments.split(/[\s`(),;:"]+/)) {
      const word = raw.replace(/[.]+$/, '');
      if (!looksLikePath(word) || word.startsWith('/')) continue;
      checked++;
      if (!exists(file, word)) missing.push(`${file}: ${word}`);
    }
  }
  assert.ok(checked >= 5, `${checked} paths checked`);
  assert.deepEqual(missing, []);
});

test("architecture.md's folder table has a row for every folder of src/ and test/", () => {
  const arch = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  const rows = arch
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => l.split('|')[1]!);
  const named = new Set(
    rows.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, '').replace(/\/<[^>]+>$/, ''))),
  );
  const folders = ['src', 'test'].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${top}/${e.name}`),
  );
  assert.deepEqual(
    folders.filter((f) => !named.has(f)),
    [],
  );
});
