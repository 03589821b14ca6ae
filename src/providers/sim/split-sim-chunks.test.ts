import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTextTokens } from '../../canonical/estimate-tokens.ts';
import { splitFragments, splitWords, takeWithinBudget, truncateToBudget } from './split-sim-chunks.ts';

const samples = [
  '',
  '   ',
  'one',
  ' lead and trail  ',
  'You said: "hi".\n\nNext line',
  '{"a":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}',
  '😀'.repeat(20),
];

test('word chunks rejoin to the text, and a prefix of chunks splits the same way again', () => {
  for (const text of samples) {
    const chunks = splitWords(text);
    assert.equal(chunks.join(''), text);
    for (let k = 0; k <= chunks.length; k++) {
      const prefix = chunks.slice(0, k);
      assert.deepEqual(splitWords(prefix.join('')), prefix.join('') === '' ? [] : prefix, JSON.stringify(text));
    }
    for (const chunk of chunks) assert.ok(!/[\uD800-\uDBFF]$/.test(chunk), 'no split surrogate pair');
  }
});

test('fragments rejoin to the text', () => {
  const args = '{"location":"sample location","unit":"celsius"}';
  const fragments = splitFragments(args, 3);
  assert.equal(fragments.length, 3);
  assert.equal(fragments.join(''), args);
  assert.deepEqual(splitFragments('', 3), []);
});

test('budgets keep the longest prefix that fits', () => {
  const chunks = splitWords('one two three four five six seven eight');
  assert.deepEqual(takeWithinBudget(chunks, 3), { count: 3, tokens: 3 });
  assert.deepEqual(takeWithinBudget(chunks, 0), { count: 0, tokens: 0 });
  assert.equal(takeWithinBudget(chunks, Infinity).count, chunks.length);
  const cut = truncateToBudget('{"key":"a value that goes on and on"}', 4);
  assert.ok(cut.tokens <= 4 && cut.tokens === estimateTextTokens(cut.text) && cut.text.length > 0);
});
