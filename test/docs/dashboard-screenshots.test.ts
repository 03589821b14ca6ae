import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_PAGES, pageName, SCREENSHOTS_FOLDER, screenshotFile, screenshotsTable, WIDTHS } from '../browser/dashboard-page-list.ts';

// docs/dashboard.md shows every page of the dashboard at both widths (issue 30 §4): each page
// of the overflow test's list has its two screenshots committed under docs/screenshots/, each
// linked from docs/dashboard.md's table, and the set stays small. `npm run screenshots` writes
// them and the table.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIR = join(ROOT, SCREENSHOTS_FOLDER);
const MAX_TOTAL_BYTES = 3_000_000;

test('every dashboard page has its desktop and phone screenshot committed', () => {
  const missing = ALL_PAGES.flatMap((p) => WIDTHS.map((w) => screenshotFile(p, w.width))).filter((f) => !existsSync(join(DIR, f)));
  assert.deepEqual(missing, [], 'run npm run screenshots');
});

test('docs/dashboard.md links every screenshot, in the table the script writes', () => {
  const doc = readFileSync(join(ROOT, 'docs/dashboard.md'), 'utf8');
  for (const p of ALL_PAGES) {
    for (const w of WIDTHS)
      assert.ok(doc.includes(`](screenshots/${screenshotFile(p, w.width)})`), `${pageName(p)} at ${w.width} px is linked`);
  }
  assert.ok(doc.includes(screenshotsTable()), 'the table is as npm run screenshots writes it');
});

test('no screenshot is left of a page no longer listed, and the set is well under 3 MB', () => {
  const listed = new Set(ALL_PAGES.flatMap((p) => WIDTHS.map((w) => screenshotFile(p, w.width))));
  const files = readdirSync(DIR);
  assert.deepEqual(
    files.filter((f) => !listed.has(f)),
    [],
  );
  const total = files.reduce((n, f) => n + statSync(join(DIR, f)).size, 0);
  assert.ok(total < MAX_TOTAL_BYTES, `${total} bytes`);
  for (const f of files) assert.equal(readFileSync(join(DIR, f)).subarray(8, 12).toString('latin1'), 'WEBP', `${f} is a WebP file`);
});
