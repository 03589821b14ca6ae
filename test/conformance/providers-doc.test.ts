import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFORMANCE_CASES } from './conformance-cases.ts';
import { DOC_PATH, renderDoc } from './render-providers-doc.ts';
import { ALL_SUBJECTS } from './subjects/all-subjects.ts';
import { BUILTIN_PROVIDERS } from '../../src/catalog/builtin-catalog.ts';

// docs/providers.md claims only what the conformance suite proves: its tables are rendered
// from the same subjects (and their skip lists) the suite runs, and from the adapters'
// parameter tables. Regenerate with `node test/conformance/write-providers-doc.ts`.

describe('docs/providers.md', () => {
  it('matches what the conformance suite runs and skips, and the parameter tables', () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    assert.equal(doc, renderDoc(doc), 'docs/providers.md is stale: run node test/conformance/write-providers-doc.ts');
  });

  it('has a subject for every built-in provider, and every skip names a case with a reason', () => {
    const subjects = new Set(ALL_SUBJECTS.map((s) => s.provider));
    for (const p of BUILTIN_PROVIDERS) assert.ok(subjects.has(p.id), `no conformance subject for ${p.id}`);
    const cases = new Set(CONFORMANCE_CASES.map((c) => c.id));
    for (const s of ALL_SUBJECTS) {
      for (const [id, reason] of Object.entries(s.skips)) {
        assert.ok(cases.has(id as never), `${s.name} skips unknown case ${id}`);
        assert.ok(typeof reason === 'string' && reason.length > 10, `${s.name} says why it skips ${id}`);
      }
    }
  });
});
