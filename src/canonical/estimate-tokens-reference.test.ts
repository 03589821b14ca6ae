import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTextTokens } from './estimate-tokens.ts';
import { seededRandom } from './seeded-random.test-util.ts';

// estimateTextTokens reads ASCII through a class table and scans each ASCII stretch in a tight
// loop (issue 29, the tool-heavy request). Its estimate must stay exactly what the plain
// per-character version below (the one before that change) gave: reservations, context
// checks, count_tokens and the sim's usage all depend on it.

const NONE = 0;
const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const PUNCT = 4;
const WIDE = 5;

function referenceEstimate(text: string): number {
  let tokens = 0;
  let runClass = NONE;
  let runUnits = 0;
  let runFirst = 0;
  const len = text.length;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    const cls = classify(c);
    if (cls === WIDE) {
      tokens += priceRun(runClass, runUnits, runFirst) + 1;
      runClass = NONE;
      runUnits = 0;
      continue;
    }
    if (cls !== runClass) {
      tokens += priceRun(runClass, runUnits, runFirst);
      runClass = cls;
      runUnits = 0;
      runFirst = c;
    }
    runUnits += cls === LETTER && c >= 128 ? 2 : 1;
  }
  return tokens + priceRun(runClass, runUnits, runFirst);
}

function classify(c: number): number {
  if (c < 128) {
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) return LETTER;
    if (c >= 48 && c <= 57) return DIGIT;
    if (c === 32 || (c >= 9 && c <= 13)) return SPACE;
    return PUNCT;
  }
  if (c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200b)) return SPACE;
  if (c >= 0x2010 && c <= 0x206f) return PUNCT; // dashes, curly quotes, ellipsis
  if (c >= 0xd800 && c <= 0xdfff) return WIDE; // surrogate halves: emoji and rare CJK
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef))
    return WIDE;
  return LETTER;
}

function priceRun(cls: number, units: number, first: number): number {
  if (units === 0) return 0;
  switch (cls) {
    case LETTER:
      return units <= 8 ? 1 : 1 + Math.ceil((units - 8) / 4);
    case DIGIT:
      return Math.ceil(units / 3);
    case SPACE:
      return units === 1 && first === 32 ? 0 : Math.ceil(units / 8);
    case PUNCT:
      return Math.ceil(units / 3);
    default:
      return 0;
  }
}

/** Code units drawn from every class and every boundary of classify(), ASCII weighted as in real prompts. */
const POOL: readonly number[] = [
  ...Array.from({ length: 128 }, (_, c) => c),
  0x7f,
  0x80,
  0x9f,
  0xa0,
  0xa1,
  0xe9,
  0xfc,
  0x3b1,
  0x430,
  0x5d0,
  0x627,
  0x1fff,
  0x2000,
  0x2005,
  0x200b,
  0x200c,
  0x200f,
  0x2010,
  0x2014,
  0x201c,
  0x2026,
  0x206f,
  0x2070,
  0x2e7f,
  0x2e80,
  0x3000,
  0x3001,
  0x3042,
  0x4e2d,
  0x9fff,
  0xa000,
  0xabff,
  0xac00,
  0xd55c,
  0xd7af,
  0xd7b0,
  0xd7ff,
  0xd800,
  0xd83d,
  0xdbff,
  0xdc00,
  0xde00,
  0xdfff,
  0xe000,
  0xf8ff,
  0xf900,
  0xfaff,
  0xfb00,
  0xfeff,
  0xff00,
  0xff21,
  0xffef,
  0xfff0,
  0xfffd,
  0xffff,
];
const COMMON = 'the quick brown fox_jumps 0123 456789 {"type":"string"}  \n\n\t    ,.;:!?()[]<>=+-*/\\\'"';

function randomText(rnd: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const r = rnd();
    if (r < 0.5) {
      // a piece of ordinary text: runs long enough to cross the letter and digit pricing steps
      const start = Math.floor(rnd() * COMMON.length);
      out += COMMON.slice(start, start + 1 + Math.floor(rnd() * 20));
    } else if (r < 0.6) {
      out += 'x'.repeat(1 + Math.floor(rnd() * 30)); // long letter runs (identifiers, base64)
    } else if (r < 0.65) {
      out += '\u{1F600}'; // a well-formed surrogate pair
    } else {
      out += String.fromCharCode(POOL[Math.floor(rnd() * POOL.length)]!);
    }
  }
  return out;
}

test('the table-driven estimate equals the per-character one on fixed texts (ASCII, accents, CJK, hangul, emoji, lone surrogates, odd spaces)', () => {
  const texts = [
    '',
    ' ',
    'a',
    '  ',
    ' a',
    'a ',
    '\u00a0',
    '\u00a0 ',
    ' \u00a0',
    '\u3000\u3000x',
    'café crème brûlée',
    'naïveté_ÆØÅ_identifiers',
    'über' + 'x'.repeat(40),
    '日本語のテキストと English mixed 混合',
    '한국어 텍스트 and Hangul',
    'emoji 😀😃 and a lone \ud800 high and \udc00 low surrogate',
    '\ud83d',
    'ＦＵＬＬＷＩＤＴＨ１２３',
    '“curly quotes” — dashes… and\u2009thin\u200bspaces',
    '1234567890'.repeat(7),
    '{"type":"object","properties":{"command":{"type":"string","description":"The command to execute"}}}',
    'line one\n\n    indented\tline\r\n\r\n',
    'αβγ123δεζ___   ...!!!',
  ];
  for (const text of texts) assert.equal(estimateTextTokens(text), referenceEstimate(text), JSON.stringify(text));
});

test('the table-driven estimate equals the per-character one on 5,000 seeded random texts', () => {
  const rnd = seededRandom(29);
  for (let n = 0; n < 5000; n++) {
    const text = randomText(rnd, Math.floor(rnd() * 400));
    assert.equal(estimateTextTokens(text), referenceEstimate(text), JSON.stringify(text));
  }
});
