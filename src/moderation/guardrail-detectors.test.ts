import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RE2JS } from 're2js';
import { seededRandom } from '../canonical/seeded-random.test-util.ts';
import { detect, ibanValid, luhn, screenedSpans, type Span } from './guardrail-detectors.ts';

test('Luhn and mod-97 tell real card numbers and IBANs from look-alikes', () => {
  assert.equal(luhn('4111 1111 1111 1111'), true);
  assert.equal(luhn('4111-1111-1111-1112'), false);
  assert.equal(luhn('378282246310005'), true);
  assert.equal(ibanValid('GB82 WEST 1234 5698 7654 32'), true);
  assert.equal(ibanValid('DE89370400440532013000'), true);
  assert.equal(ibanValid('DE89370400440532013001'), false);
});

test('each detector finds its shapes, and not ordinary text', () => {
  const found = (name: Parameters<typeof detect>[0], text: string) => detect(name, text).map(([s, e]) => text.slice(s, e));
  assert.deepEqual(found('email', 'write to a.b+c@mail.example.co.uk now'), ['a.b+c@mail.example.co.uk']);
  assert.deepEqual(found('phone', 'call (415) 555-2671 or +33 1 42 68 53 00'), ['415) 555-2671', '+33 1 42 68 53 00']);
  assert.deepEqual(found('payment_card', 'pay 5555555555554444 not 1234567812345678'), ['5555555555554444']);
  assert.deepEqual(found('credentials', 'key AKIAIOSFODNN7EXAMPLE here'), ['AKIAIOSFODNN7EXAMPLE']);
  assert.deepEqual(found('credentials', 'sk-proj-abcdefghijklmnopqrstuv1234'), ['sk-proj-abcdefghijklmnopqrstuv1234']);
  for (const name of ['email', 'phone', 'payment_card', 'iban', 'credentials'] as const) {
    assert.deepEqual(found(name, 'The meeting is at 10:30 on 2026-11-27 in room 42.'), [], name);
  }
});

// The built-in detectors ask RE2's DFA first whether a text holds any match (screenedSpans),
// and search with a Matcher only when it does: the spans must be exactly the Matcher's own.
test('screenedSpans finds exactly the spans a Matcher finds, on 2,000 seeded texts with and without matches', () => {
  const reference = (re: RE2JS, text: string): Span[] => {
    const out: Span[] = [];
    const m = re.matcher(text);
    while (m.find()) if (m.end() > m.start()) out.push([m.start(), m.end()]);
    return out;
  };
  const patterns = [
    '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}',
    '(?:\\+|\\b)\\d(?:[ .()-]{0,2}\\d){8,14}\\b',
    '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b',
    '-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----[\\s\\S]*?(?:-----END (?:[A-Z]+ )*PRIVATE KEY-----|$)',
    '(?i)secret',
    'x*',
  ].map((source) => RE2JS.compile(source));
  const pieces = [
    'a.b@mail.example.com',
    ' ',
    '\n',
    '+33 1 42 68 53 00',
    'AKIAIOSFODNN7EXAMPLE',
    'SeCrEt',
    'word',
    '42',
    '-----BEGIN RSA PRIVATE KEY-----',
    'é',
    '😀',
    'x',
  ];
  const rnd = seededRandom(2911);
  for (let n = 0; n < 2000; n++) {
    let text = '';
    const length = Math.floor(rnd() * 10);
    // Most texts of a request hold no match: draw from the plain pieces more often.
    for (let i = 0; i < length; i++) text += pieces[rnd() < 0.7 ? 6 + Math.floor(rnd() * 6) : Math.floor(rnd() * pieces.length)]!;
    for (const re of patterns)
      assert.deepEqual(screenedSpans(re, text), reference(re, text), `${re.toString()} on ${JSON.stringify(text)}`);
  }
});
