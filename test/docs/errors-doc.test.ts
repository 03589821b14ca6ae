import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES } from '../../src/errors/error-catalogue.ts';

test('docs/errors.md lists exactly the catalogue codes, with their status and type', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, { status: number; type: string; retryable: boolean }>();
  for (const m of doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| `([a-z_]+)` \| (yes|no) \|/gm)) {
    rows.set(m[1]!, { status: Number(m[2]), type: m[3]!, retryable: m[4] === 'yes' });
  }
  assert.deepEqual([...rows.keys()].sort(), Object.keys(ERROR_CODES).sort());
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    assert.deepEqual(rows.get(code), { status: info.status, type: info.type, retryable: info.retryable }, code);
  }
});

test('every error type maps to one status (the spec: the status matches the type)', () => {
  const statusOf = new Map<string, number>();
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    const seen = statusOf.get(info.type);
    assert.ok(seen === undefined || seen === info.status, `${code}: type ${info.type} has statuses ${seen} and ${info.status}`);
    statusOf.set(info.type, info.status);
  }
});
