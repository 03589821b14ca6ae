import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BIN } from '../support/serve-process.ts';

// The launcher, started by a Node too old for the gateway, re-runs it under the bundled
// Node 24 with the Node flags it was given (docs/operations.md, "Memory": a bounded young
// generation is given as a flag before bin/switchyard.mjs).

/** A Node older than 22.18 outside node_modules (the system one), so the launcher re-spawns. */
function oldNode(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const bin = join(dir, 'node');
    if (!existsSync(bin)) continue;
    const v = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim().split('.').map(Number);
    if (v.length === 3 && v[0]! >= 20 && (v[0]! < 22 || (v[0] === 22 && v[1]! < 18))) return bin;
  }
  return null;
}

const node = oldNode();
test(
  'Node flags given to the launcher reach the gateway it re-runs under Node 24',
  { skip: node === null && 'no Node 20–22.17 on PATH' },
  () => {
    // Each process that has the flag prints the marker once: the launcher and the gateway.
    const flag = `--import=data:text/javascript,process.stderr.write("flag-seen%20"+process.versions.node.split(".")[0]+"\\n")`;
    const r = spawnSync(node!, [flag, BIN, '--version'], { encoding: 'utf8', env: { ...process.env, SWITCHYARD_LAUNCHED: '' } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^switchyard .*node 24\./);
    const seen = r.stderr.match(/flag-seen \d+/g) ?? [];
    assert.equal(seen.length, 2, r.stderr);
    assert.ok(seen.includes('flag-seen 24'), `the gateway under Node 24 had the flag: ${r.stderr}`);
  },
);
