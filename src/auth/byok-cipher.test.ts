import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, MasterKey, rewrap } from './byok-cipher.ts';

const master = MasterKey.parse(randomBytes(32).toString('base64'))!;
const other = MasterKey.parse(randomBytes(32).toString('hex'))!;

test('a master key is 32 bytes as hex or base64, nothing else', () => {
  assert.notEqual(master, null);
  assert.notEqual(other, null);
  assert.equal(MasterKey.parse('too short'), null);
  assert.equal(MasterKey.parse(randomBytes(16).toString('hex')), null);
  assert.equal(MasterKey.parse(randomBytes(31).toString('base64')), null);
});

test('sealed per account and provider: it opens only there, with its master key, unaltered', () => {
  const sealed = encryptSecret(master, 'sk-secret-123456', 'acct_a', 'openai');
  assert.equal(JSON.stringify(sealed).includes('sk-secret'), false);
  assert.equal(decryptSecret(master, sealed, 'acct_a', 'openai'), 'sk-secret-123456');
  assert.throws(() => decryptSecret(master, sealed, 'acct_b', 'openai'));
  assert.throws(() => decryptSecret(master, sealed, 'acct_a', 'anthropic'));
  assert.throws(() => decryptSecret(other, sealed, 'acct_a', 'openai'));
  const flipped = sealed.ciphertext.slice(0, -2) + (sealed.ciphertext.endsWith('A') ? 'BB' : 'AA');
  assert.throws(() => decryptSecret(master, { ...sealed, ciphertext: flipped }, 'acct_a', 'openai'));
  // Two seals of one secret differ (a data key and IVs of their own).
  assert.notEqual(encryptSecret(master, 'sk-secret-123456', 'acct_a', 'openai').ciphertext, sealed.ciphertext);
});

test('rewrap moves the data key to the new master key; the secret seal stays', () => {
  const sealed = encryptSecret(master, 'sk-secret-123456', 'acct_a', 'openai');
  const moved = rewrap(master, other, sealed, 'acct_a', 'openai');
  assert.equal(moved.ciphertext, sealed.ciphertext);
  assert.equal(moved.masterKeyId, other.id);
  assert.equal(decryptSecret(other, moved, 'acct_a', 'openai'), 'sk-secret-123456');
  assert.throws(() => decryptSecret(master, moved, 'acct_a', 'openai'));
  assert.throws(() => rewrap(other, master, sealed, 'acct_a', 'openai'));
});
