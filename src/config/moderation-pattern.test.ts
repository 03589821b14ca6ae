import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../canonical/seeded-random.test-util.ts';
import { combineModerationPatterns, compileModerationPattern, findPattern, matchesPattern } from './moderation-pattern.ts';

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

// clearText asks only whether a pattern matches (re2js's DFA, matchesPattern); the flagged
// path asks where (findPattern). Both must agree on every pattern and text, or a text the
// rules flag could be let through as clear.

const MORE_SOURCES = [
  ...SOURCES,
  '',
  '\\bkill\\b',
  '(?m)^line two$',
  '(?s)start.*end',
  'start.end',
  '[[:digit:]]{4}-[[:digit:]]{2}',
  '\\p{Han}{2}',
  'straße',
  'k',
  'é+',
  '\\x{1F600}',
  '(?U)a+?b',
  'colou?r|gr[ae]y',
  '\\Qa.b\\E',
];
const MORE_TEXTS = [
  ...TEXTS,
  'skill and kill',
  'line one\nline two\nline three',
  'start\nmiddle\nend',
  'startXend',
  'dated 2026-11',
  '中文字',
  'STRASSE or STRAßE',
  '\u212a (Kelvin sign) and ſ (long s)',
  'CAFÉ ÉÉ',
  'emoji 😀 here',
  'a lone \ud800 surrogate',
  'aaab',
  'the colour grey',
  'a.b and axb',
];

function agree(source: string, text: string): void {
  const pattern = compileModerationPattern(source);
  assert.equal(matchesPattern(pattern, text), findPattern(pattern, text) >= 0, `${source} on ${JSON.stringify(text)}`);
}

test('matchesPattern agrees with findPattern on varied patterns and texts (case folding, anchors, flags, Unicode)', () => {
  for (const source of MORE_SOURCES) for (const text of MORE_TEXTS) agree(source, text);
  const screen = combineModerationPatterns(MORE_SOURCES.filter((s) => s !== '').map(compileModerationPattern));
  assert.ok(screen !== null);
  for (const text of MORE_TEXTS) assert.equal(matchesPattern(screen, text), findPattern(screen, text) >= 0, JSON.stringify(text));
});

test('matchesPattern agrees with findPattern on 3,000 seeded random texts, short and long', () => {
  const rnd = seededRandom(29);
  const pieces = [
    'forbidden',
    ' ',
    '  \n',
    'words',
    'FORBIDDEN\tWORDS',
    'kill',
    'skill',
    'line two',
    '\n',
    'xx',
    'y',
    'é',
    '中',
    '😀',
    '-',
    '12',
  ];
  const patterns = ['forbidden\\s+words', '\\bkill\\b', '(?m)^line two$', 'x{2,3}y', '\\p{Han}', 'é{2}'].map(compileModerationPattern);
  const screen = combineModerationPatterns(patterns);
  assert.ok(screen !== null);
  for (let n = 0; n < 3000; n++) {
    let text = '';
    const length = rnd() < 0.9 ? Math.floor(rnd() * 12) : 200 + Math.floor(rnd() * 200);
    for (let i = 0; i < length; i++) text += pieces[Math.floor(rnd() * pieces.length)]!;
    for (const p of [...patterns, screen])
      assert.equal(matchesPattern(p, text), findPattern(p, text) >= 0, `${p.source} on ${JSON.stringify(text)}`);
  }
});
