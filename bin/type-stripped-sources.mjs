#!/usr/bin/env node
// The gateway's TypeScript sources with their types stripped, cached as JavaScript, so the
// running gateway does not load Node's type stripper (amaro, a WebAssembly module of about
// 15-20 MB per thread: the main thread and the SQLite writer each load their own).
//
// `node bin/type-stripped-sources.mjs` (npm start and the image run it before the gateway):
// strips every src/**/*.ts (and bench/**/*.ts where bench/ is: not in the image) not yet in the cache, with Node's own `stripTypeScriptTypes` (the
// same transform Node applies when it loads a .ts file: types replaced by spaces, so line
// and column numbers stay those of the source), and removes entries no source has any more.
// `bin/type-stripped-hook.mjs`, preloaded with `--import`, serves them. Entries are named by
// the SHA-256 of the source text: an edited file simply misses (Node strips it as usual) until
// the next run of this script, and a stale entry can never be served.
//
// An error (an unreadable source, a full disk) exits 1 with its message: the image's build
// fails rather than ship without the cache. `--best-effort` (npm start) says the error and
// exits 0: the gateway then strips its sources itself, as without the cache (only memory is
// at stake).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * What is cached: the gateway's sources, and the bench's (its gateway and preloads run as the
 * gateway does) in a checkout that has it; the image has no bench/.
 */
export const sourceDirs = [join(root, 'src'), join(root, 'bench')];
/** The folders of sourceDirs that must exist: src/ always; bench/ only in a checkout. */
const requiredDirs = new Set([join(root, 'src')]);
/** SWITCHYARD_TYPE_STRIPPED_CACHE: another directory (tests: an empty one, to see the gateway without the cache). */
export const cacheDir = process.env.SWITCHYARD_TYPE_STRIPPED_CACHE || join(root, 'node_modules', '.cache', 'switchyard-type-stripped');

/** The cache entry's file name for a source text. */
export function entryName(source) {
  return `${createHash('sha256').update(source).digest('hex').slice(0, 40)}.js`;
}

function sources(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) sources(path, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Brings the cache up to date with the sources (src/, bench/); returns how many entries were written and removed. */
export async function warm(stripTypeScriptTypes) {
  mkdirSync(cacheDir, { recursive: true });
  const present = new Set(readdirSync(cacheDir));
  const wanted = new Set();
  let written = 0;
  for (const file of sourceDirs.filter((dir) => requiredDirs.has(dir) || existsSync(dir)).flatMap((dir) => sources(dir))) {
    const source = readFileSync(file, 'utf8');
    const name = entryName(source);
    wanted.add(name);
    if (present.has(name)) continue;
    const tmp = join(cacheDir, `${name}.${process.pid}.tmp`);
    writeFileSync(
      tmp,
      quietly(() => stripTypeScriptTypes(source, { mode: 'strip' })),
    );
    renameSync(tmp, join(cacheDir, name)); // whole or absent: a gateway starting meanwhile never reads half an entry
    written++;
  }
  let removed = 0;
  for (const name of present) {
    if (wanted.has(name) || name.endsWith('.tmp')) continue;
    rmSync(join(cacheDir, name), { force: true });
    removed++;
  }
  return { written, removed };
}

/** Node calls the API experimental and says so on stderr; the gateway's start is no place for that line. */
function quietly(fn) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and called with process as this
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    if ((rest[0]?.type ?? rest[0]) !== 'ExperimentalWarning') emit.call(process, warning, ...rest);
  };
  try {
    return fn();
  } finally {
    process.emitWarning = emit;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bestEffort = process.argv.includes('--best-effort');
  try {
    const { stripTypeScriptTypes } = await import('node:module');
    const bundled = join(root, 'node_modules', 'node', 'bin', 'node');
    if (typeof stripTypeScriptTypes === 'function') await warm(stripTypeScriptTypes);
    // An older Node (the system one on some machines) has no stripper: the Node 24 that runs the gateway strips.
    else if (existsSync(bundled)) {
      const r = spawnSync(bundled, process.argv.slice(1), { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
    } else throw new Error(`Node ${process.version} cannot strip types and ${bundled} is missing (npm ci installs it)`);
  } catch (err) {
    process.stderr.write(
      bestEffort
        ? `switchyard: the type-stripped sources were not cached (${err.message}); starting without them\n`
        : `switchyard: could not cache the type-stripped sources: ${err.message}\n`,
    );
    process.exitCode = bestEffort ? 0 : 1;
  }
}
