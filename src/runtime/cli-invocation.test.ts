import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliCommand, cliInvocation } from './cli-invocation.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const launcher = join(root, 'bin', 'switchyard.mjs');

describe('cliInvocation', () => {
  it('in the checkout after npm ci (no switchyard on PATH): npx switchyard', () => {
    assert.equal(cliInvocation({ env: { PATH: '/usr/bin:/bin' }, cwd: root }), 'npx switchyard');
    assert.equal(cliInvocation({ env: {}, cwd: join(root, 'src') }), 'npx switchyard');
  });

  it("with the launcher linked on PATH (the image, a global install): switchyard; npm's own node_modules/.bin does not count", () => {
    const bin = mkdtempSync(join(tmpdir(), 'switchyard-path-'));
    symlinkSync(launcher, join(bin, 'switchyard'));
    assert.equal(cliCommand({ env: { PATH: `/usr/bin:${bin}` }, cwd: '/' }), 'switchyard');
    const npx = mkdtempSync(join(tmpdir(), 'switchyard-npx-'));
    const dotBin = join(npx, 'node_modules');
    symlinkSync(bin, dotBin);
    assert.equal(cliCommand({ env: { PATH: `${dotBin}/.bin:${dotBin}` }, cwd: root }), 'npx switchyard');
  });

  it('elsewhere: the launcher by its path; cliCommand, for answers to clients, names no path', () => {
    assert.equal(cliInvocation({ env: {}, cwd: '/' }), `node ${launcher}`);
    assert.equal(cliCommand({ env: {}, cwd: '/' }), null);
  });

  it('carries what picks the database, quoted for a shell; never a postgres URL', () => {
    assert.equal(
      cliInvocation({
        env: { SWITCHYARD_DATA_DIR: 'my data', DATABASE_URL: 'postgres://u:secret@h/db' },
        cwd: root,
        configPath: "conf/it's.yaml",
      }),
      `SWITCHYARD_DATA_DIR='${join(root, 'my data')}' npx switchyard --config '${join(root, "conf/it'\\''s.yaml")}'`,
    );
    assert.equal(
      cliInvocation({ env: { DATABASE_URL: 'sqlite:./x.db', SWITCHYARD_CONFIG: '/etc/s.yaml' }, cwd: root }),
      'DATABASE_URL=sqlite:./x.db npx switchyard --config /etc/s.yaml',
    );
    assert.equal(cliInvocation({ env: { SWITCHYARD_CONFIG: '' }, cwd: root }), 'npx switchyard');
  });
});
