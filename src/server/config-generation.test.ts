import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/load-config.ts';
import { restartOnlyChange } from './config-generation.ts';

const load = (yaml: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'switchyard-reload-')), 'switchyard.yaml');
  writeFileSync(path, yaml);
  return loadConfig({ path, env: {} });
};

test('a reload that changes smtp: is refused (the mailer is built at start); one that keeps it passes', () => {
  const base = 'sim: true\nserver: { public_origin: "https://gw.example.com" }\n';
  const a = load(`${base}smtp: { host: mail.example.com, from: gw@example.com }\n`);
  const b = load(`${base}smtp: { host: mail2.example.com, from: gw@example.com }\n`);
  assert.equal(restartOnlyChange(a, load(`${base}smtp: { host: mail.example.com, from: gw@example.com }\n`)), null);
  assert.match(restartOnlyChange(a, b) ?? '', /smtp changed; it takes a restart/);
  assert.throws(() => load('sim: true\nsmtp: { host: mail.example.com, from: gw@example.com }\n'), /smtp: needs server.public_origin/);
});
