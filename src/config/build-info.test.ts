import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readBuildInfo } from './build-info.ts';

function packageRoot(build?: string): { root: URL; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-build-info-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '1.2.3' }));
  if (build !== undefined) writeFileSync(join(dir, 'BUILD'), build);
  return { root: pathToFileURL(`${dir}/`), dir };
}

test('the build is the env SWITCHYARD_BUILD, else the BUILD file at the package root, else dev', (t) => {
  const withFile = packageRoot('9f8e7d6\n');
  const without = packageRoot();
  t.after(() => {
    rmSync(withFile.dir, { recursive: true, force: true });
    rmSync(without.dir, { recursive: true, force: true });
  });
  assert.deepEqual(readBuildInfo({ SWITCHYARD_BUILD: 'from-env' }, withFile.root), {
    version: '1.2.3',
    build: 'from-env',
    node: process.versions.node,
  });
  assert.equal(readBuildInfo({}, withFile.root).build, '9f8e7d6');
  assert.equal(readBuildInfo({ SWITCHYARD_BUILD: ' ' }, without.root).build, 'dev');
});
