import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detect, ibanValid, luhn } from './guardrail-detectors.ts';

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
