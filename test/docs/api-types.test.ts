import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_TYPES_FILE, currentApiTypes } from './api-types.ts';

test("the dashboard's API types are generated from the current OpenAPI document (node test/docs/write-api-types.ts)", async () => {
  const committed = readFileSync(API_TYPES_FILE, 'utf8');
  const fresh = await currentApiTypes();
  assert.ok(committed === fresh, 'web/src/api/schema.ts is stale: run `node test/docs/write-api-types.ts` and commit it');
});
