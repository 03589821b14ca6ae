import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN } from '../support/serve-process.ts';

// `switchyard --version`: the package version and the build, as /ready reports them.

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function versionOutput(env: Record<string, string>): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [BIN, '--version'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout };
}

test('switchyard --version prints the package version and the build named by SWITCHYARD_BUILD', () => {
  const r = versionOutput({ SWITCHYARD_BUILD: 'abc1234' });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, `switchyard ${version} (build abc1234, node ${process.versions.node})\n`);
});

test('without a build named, --version says dev (a checkout has no BUILD file)', () => {
  const r = versionOutput({ SWITCHYARD_BUILD: '' });
  assert.equal(r.status, 0);
  assert.match(r.stdout, new RegExp(`^switchyard ${version.replaceAll('.', '\\.')} \\(build dev, node `));
});
