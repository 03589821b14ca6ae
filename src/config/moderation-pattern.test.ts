import { test } from 'node:test';
import assert from 'node:assert/strict';
import { combineModerationPatterns, compileModerationPattern, findPattern } from './moderation-pattern.ts';

// The moderator screens a request with all the rules' patterns combined (one pass per text)
// and looks at each pattern only when the screen matched: the combination must match
// exactly the texts some pattern matches.

const SOURCES = ['forbidden\\s+words', '^starts-here', 'ends-here$', '(?-i:CaseOnly)', 'a(?P<n>b)c', 'x{2,3}y'];
const TEXTS = [
  'nothing to see',
  'say the FORBIDDEN   words',
  'starts-here and more',
  'not at the start: starts-here',
  'this ends-here',
  'ends-here not at the end',
  'caseonly',
  'CaseOnly',
  'ABC',
  'xxy',
  'xy',
  '',
];

test('a text matches the combined patterns exactly when it matches one of them', () => {
  const patterns = SOURCES.map(compileModerationPattern);
  const screen = combineModerationPatterns(patterns);
  assert.ok(screen !== null);
  for (const text of TEXTS) {
    const any = patterns.some((p) => findPattern(p, text) >= 0);
    assert.equal(findPattern(screen, text) >= 0, any, JSON.stringify(text));
  }
});

test('patterns RE2 cannot combine (one group name twice) are not combined, and fewer than two need no screen', () => {
  const named = [compileModerationPattern('(?P<w>bad)'), compileModerationPattern('(?P<w>worse)')];
  assert.equal(combineModerationPatterns(named), null);
  assert.equal(combineModerationPatterns([compileModerationPattern('bad')]), null);
});
