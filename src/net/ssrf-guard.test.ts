import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardedLookup, isPrivateAddress } from './ssrf-guard.ts';

test('private, loopback, link-local and reserved addresses are refused; public ones pass', () => {
  for (const a of [
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::2',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ]) {
    assert.equal(isPrivateAddress(a), true, a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(isPrivateAddress(a), false, a);
  }
});

test('the socket lookup refuses a name that resolves to loopback', async () => {
  const err = await new Promise<Error | null>((resolve) => guardedLookup('localhost', { all: true }, (e) => resolve(e)));
  assert.ok(err !== null);
  assert.match(err.message, /private or loopback/);
});
