import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { currentRoutesTable } from './routes-doc-gateway.ts';
import { withRoutesTable } from './render-routes-doc.ts';

// docs/security.md lists every route with its authentication as the routes declare it.
describe('docs/security.md', () => {
  it('lists every route with the authentication and body its declaration gives', async () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    assert.equal(
      doc,
      withRoutesTable(doc, await currentRoutesTable()),
      'docs/security.md is stale: run node test/docs/write-routes-doc.ts',
    );
  });
});
