import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { runCli, runCliJson } from '../support/run-cli.ts';
import { REPO, tempDir } from '../support/serve-process.ts';

// A newcomer's first commands print nothing on stderr but what they asked for: `npm ci`
// and `npx switchyard ...` with the machine's own npm, on the machine's own Node (often
// older than the Node 24 switchyard runs on: npm then checks every package's `engines`
// against it, .npmrc), and every `switchyard` command itself.

/** The machine's PATH, without this checkout's node_modules/.bin (a newcomer's shell before `npm ci`). */
const systemPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => d !== '' && !d.includes('node_modules'))
  .join(delimiter);

function onPath(name: string): string | null {
  for (const dir of systemPath.split(delimiter)) if (existsSync(join(dir, name))) return realpathSync(join(dir, name));
  return null;
}

const systemNode = onPath('node');
const npmCli = (() => {
  const npm = onPath('npm');
  return npm === null ? null : join(dirname(npm), 'npm-cli.js');
})();
const noNpm = (systemNode === null || npmCli === null || !existsSync(npmCli)) && 'no system node and npm on PATH';

/** The environment of a fresh shell: none of npm's variables (a test run under `npm test` has them). */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: systemPath, ...extra };
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'PATH' && k !== 'NODE_OPTIONS') env[k] ??= v;
  return env;
}

function npm(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(systemNode!, [npmCli!, ...args], { cwd: REPO, env, encoding: 'utf8' });
}

test(
  `npm ci, as README runs it with the machine's npm (on Node ${systemNode === null ? '?' : spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim()}), warns about nothing`,
  { skip: noNpm },
  () => {
    // --dry-run: the whole resolution and its checks (engines, install scripts), nothing written;
    // --ignore-scripts: no `prepare` rebuilding the dashboard under the other tests' feet.
    const r = npm(['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], shellEnv());
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'nothing on stderr');
  },
);

test(
  '`npx switchyard --version`, the first in a checkout (npx installs the local package into its cache) and the next, prints the version and nothing on stderr',
  { skip: noNpm },
  () => {
    const cache = tempDir('switchyard-npm-cache'); // a fresh npm cache: npx's first run here, as a newcomer's
    const env = shellEnv({ npm_config_cache: cache });
    for (const run of ['first', 'second']) {
      const r = spawnSync(systemNode!, [join(dirname(npmCli!), 'npx-cli.js'), 'switchyard', '--version'], {
        cwd: REPO,
        env,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^switchyard \d+\.\d+\.\d+ \(build \S+, node 24\./, 'run by the Node 24 that npm ci installed');
      assert.equal(r.stderr, '', `the ${run} run: nothing on stderr`);
    }
  },
);

test('switchyard commands print nothing on stderr when they succeed', () => {
  const dir = tempDir('switchyard-quiet');
  writeFileSync(join(dir, 'switchyard.yaml'), '');
  for (const args of [
    ['--version'],
    ['--help'],
    ['init'],
    ['config', 'check'],
    ['accounts', 'list'],
    ['keys', 'list'],
    ['usage', '--help'],
  ]) {
    const r = runCli(dir, ...args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.err, '', `${args.join(' ')}: nothing on stderr`);
  }
  const account = runCliJson(dir, 'accounts', 'create', '--name', 'quiet', '--credits', '1');
  const r = runCli(dir, 'keys', 'create', '--account', account.id, '--name', 'k');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
});
