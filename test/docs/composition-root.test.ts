import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// docs/architecture.md, "The composition root": the wiring is split by concern into
// server/wiring/, every group is named there, no route or dashboard module takes the whole
// `Services` (each declares the members it uses), and the stores' opening does not import
// the composition root back (the cycle open-stores.ts ↔ services.ts is gone).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER = join(ROOT, 'src/server');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The files of `files` whose imports name server/services.ts (not fleet-services.ts). */
function importersOfServices(files: string[]): string[] {
  return files
    .filter((f) => /(?:from|import)\s*\(?\s*['"][./]*(?:\.\.\/|\.\/)(?:server\/)?services\.ts['"]/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(ROOT, f));
}

test('no module under server/routes/, server/dashboard/, server/webhooks/, server/mcp-endpoint/ or server/mcp-loop/ imports services.ts', () => {
  const files = ['routes', 'dashboard', 'webhooks', 'mcp-endpoint', 'mcp-loop'].flatMap((d) => tsFiles(join(SERVER, d)));
  assert.ok(files.length > 40, `found only ${files.length} route and component files`);
  assert.deepEqual(importersOfServices(files), []);
});

test("the stores' opening and the wiring groups do not import the composition root (no cycle)", () => {
  const files = [join(SERVER, 'open-stores.ts'), ...tsFiles(join(SERVER, 'wiring'))];
  assert.deepEqual(importersOfServices(files), []);
});

test("every wiring group is named in docs/architecture.md's composition root", () => {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = /^## The composition root\n([\s\S]*?)^## /m.exec(doc);
  assert.ok(section, 'docs/architecture.md has a "The composition root" section');
  const unnamed = tsFiles(join(SERVER, 'wiring'))
    .map((f) => `wiring/${relative(join(SERVER, 'wiring'), f)}`)
    .filter((name) => name !== 'wiring/service-options.ts' && !section[1]!.includes(name));
  assert.deepEqual(unnamed, []);
});

test('every register… function under server/routes/ and server/dashboard/ takes a …Deps type, not Services', () => {
  const files = ['routes', 'dashboard'].flatMap((d) => tsFiles(join(SERVER, d)));
  const offenders: string[] = [];
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/export function (register\w+)\(app: FastifyInstance, (\w+): (\w+)/g)) {
      if (m[2] === 'deps' && !m[3]!.endsWith('Deps')) offenders.push(`${relative(ROOT, f)}: ${m[1]}(${m[2]}: ${m[3]})`);
      if (m[3] === 'Services') offenders.push(`${relative(ROOT, f)}: ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
