import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadOnFirstUse } from './load-on-first-use.ts';

test('loadOnFirstUse loads once for every caller, and again after a failed load', async () => {
  let calls = 0;
  let fail = true;
  const load = loadOnFirstUse(async () => {
    calls++;
    if (fail) throw new Error('not installed');
    return { lib: calls };
  });
  await assert.rejects(Promise.all([load(), load()]), /not installed/);
  assert.equal(calls, 1, 'callers during one load share it');
  fail = false;
  const [a, b] = await Promise.all([load(), load()]);
  assert.equal(calls, 2, 'the failure was forgotten: loaded again, once');
  assert.equal(a, b);
  assert.equal(await load(), a);
  assert.equal(calls, 2);
});
