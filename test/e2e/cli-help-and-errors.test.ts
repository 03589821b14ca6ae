import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The `switchyard` command's own surface, run as a separate process: help for every command
// with examples, --version, exit code 1 for every wrong input, and no database made by a
// command other than serve and init.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Runs the CLI in `cwd` with only the given switchyard variables set. */
function run(cwd: string, env: Record<string, string>, ...args: string[]): { code: number | null; out: string; err: string } {
  const clean: Record<string, string | undefined> = {
    ...process.env,
    SWITCHYARD_DATA_DIR: '',
    SWITCHYARD_CONFIG: '',
    DATABASE_URL: '',
    ...env,
  };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: clean, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const COMMANDS = [
  ['serve'],
  ['init'],
  ['config', 'check'],
  ['accounts', 'create'],
  ['accounts', 'update'],
  ['accounts', 'list'],
  ['keys', 'create'],
  ['keys', 'list'],
  ['keys', 'revoke'],
  ['keys', 'enable'],
  ['credits', 'add'],
  ['credits', 'adjust'],
  ['usage'],
  ['generations', 'list'],
  ['generations', 'show'],
];

describe('the CLI surface', () => {
  let cwd: string;
  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'switchyard-cli-surface-'));
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  test('every command and subcommand has its own help with examples; --config on each', () => {
    for (const cmd of COMMANDS) {
      const r = run(cwd, {}, ...cmd, '--help');
      assert.equal(r.code, 0, `${cmd.join(' ')}: ${r.err}`);
      assert.match(r.out, new RegExp(`^Usage: switchyard ${cmd.join(' ')} `), cmd.join(' '));
      assert.match(r.out, /\nExamples:\n {2}\$ switchyard /, `${cmd.join(' ')} has examples`);
      assert.match(r.out, /--config <path>/, `${cmd.join(' ')} takes --config`);
      if (cmd[0] !== 'serve') assert.match(r.out, /--json/, `${cmd.join(' ')} takes --json`);
    }
    const create = run(cwd, {}, 'keys', 'create', '--help');
    assert.match(create.out, /--expires <date>/);
    assert.doesNotMatch(create.out, /accounts/, 'not the global help');
    for (const group of [[], ['accounts'], ['keys'], ['credits'], ['generations'], ['config']]) {
      const r = run(cwd, {}, ...group, '--help');
      assert.equal(r.code, 0);
      assert.match(r.out, /\nExamples:\n {2}\$ switchyard /, `${group.join(' ') || 'switchyard'} has examples`);
    }
    const top = run(cwd, {}, '--help');
    assert.match(top.out, /Exit codes: 0 success; 1 wrong input/);
  });

  test('a command group alone shows its subcommands, not "unknown command"', () => {
    const r = run(cwd, {}, 'keys');
    assert.equal(r.code, 1);
    assert.match(r.err, /Usage: switchyard keys/);
    assert.match(r.err, /create \[options\]/);
    assert.match(r.err, /revoke \[options\] <key>/);
    assert.doesNotMatch(r.err, /unknown command/);
  });

  test('--version prints the package version, the build and the Node version', () => {
    for (const flag of ['--version', '-V']) {
      const r = run(cwd, {}, flag);
      assert.equal(r.code, 0);
      assert.match(r.out, new RegExp(`^switchyard ${VERSION.replaceAll('.', '\\.')} \\(build [^,]+, node \\d+\\.\\d+\\.\\d+\\)\n$`));
    }
  });

  test('wrong input exits 1 with a message and no stack trace', () => {
    const cases: string[][] = [
      ['frobnicate'],
      ['keys', 'frobnicate'],
      ['keys', 'list', '--bogus'],
      ['accounts', 'create'],
      ['credits', 'add', '--account', 'acct_x', '--amount', 'lots'],
      ['credits', 'add', '--account', 'acct_x', '--amount', '-5'],
      ['keys', 'create', '--account', 'acct_x', '--expires', 'tomorrow'],
      ['keys', 'create', '--account', 'acct_x', '--expires', '2020-01-01'],
      ['usage', '--account', 'acct_x', '--by', 'week'],
      ['generations', 'list', '--limit', '0'],
    ];
    for (const args of cases) {
      const r = run(cwd, {}, ...args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /error: /, args.join(' '));
      assert.doesNotMatch(r.err, /at .*\.ts:\d+/, `${args.join(' ')}: no stack trace`);
    }
    assert.match(run(cwd, {}, 'frobnicate').err, /unknown command 'frobnicate'/);
    assert.match(run(cwd, {}, 'keys', 'create', '--account', 'acct_x', '--expires', '2020-01-01').err, /in the past/);
    assert.match(run(cwd, {}, 'credits', 'add', '--account', 'acct_x', '--amount', '-5').err, /must be positive.*credits adjust/);
  });

  test('outside serve and init, a missing database is an error saying where it looked; nothing is created', () => {
    const here = run(cwd, {}, 'keys', 'list');
    assert.equal(here.code, 1);
    assert.match(
      here.err,
      new RegExp(`no switchyard database at ${join(cwd, 'data', 'switchyard.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    assert.match(here.err, /--config PATH/);
    assert.match(here.err, /SWITCHYARD_DATA_DIR/);
    assert.match(here.err, /DATABASE_URL/);
    assert.match(here.err, /switchyard init/);
    assert.equal(existsSync(join(cwd, 'data')), false, 'no ./data/ made in the current folder');

    const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-empty-'));
    try {
      for (const args of [
        ['accounts', 'list'],
        ['usage', '--account', 'acct_x'],
        ['generations', 'list'],
        ['credits', 'add', '--account', 'acct_x', '--amount', '1'],
      ]) {
        const r = run(cwd, { SWITCHYARD_DATA_DIR: dataDir }, ...args);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.err, /from SWITCHYARD_DATA_DIR=/);
      }
      assert.deepEqual(readdirSync(dataDir), [], 'nothing created in the data dir');

      const init = run(cwd, { SWITCHYARD_DATA_DIR: dataDir }, 'init', '--json');
      assert.equal(init.code, 0, init.err);
      assert.deepEqual(JSON.parse(init.out), { database: join(dataDir, 'switchyard.db'), created: true });
      const listed = run(cwd, { SWITCHYARD_DATA_DIR: dataDir }, 'accounts', 'list', '--json');
      assert.equal(listed.code, 0, listed.err);
      assert.deepEqual(JSON.parse(listed.out), []);
      const again = run(cwd, { SWITCHYARD_DATA_DIR: dataDir }, 'init', '--json');
      assert.equal(JSON.parse(again.out).created, false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('--config works before the command as well as after it', () => {
    const dbDir = mkdtempSync(join(tmpdir(), 'switchyard-cli-config-'));
    try {
      const file = join(dbDir, 'switchyard.yaml');
      writeFileSync(file, `database:\n  path: ${join(dbDir, 'gw.db')}\n`);
      const missing = run(cwd, {}, '--config', file, 'accounts', 'list');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /gw\.db \(from database\.path in .*switchyard\.yaml\)/);
      assert.equal(run(cwd, {}, '--config', file, 'init').code, 0);
      const before = run(cwd, {}, '--config', file, 'accounts', 'create', '--name', 'Early', '--json');
      assert.equal(before.code, 0, before.err);
      const after = run(cwd, {}, 'accounts', 'list', '--config', file, '--json');
      assert.deepEqual(
        JSON.parse(after.out).map((a: any) => a.name),
        ['Early'],
      );
      assert.equal(existsSync(join(cwd, 'data')), false);
    } finally {
      rmSync(dbDir, { recursive: true, force: true });
    }
  });
});
