import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OidcConfig } from '../config/parse-oidc.ts';
import { identityOf } from './oidc-claims.ts';

// A verified ID token's claims → the member who signs in: email checks, then the first rule that matches.

const cfg: OidcConfig = {
  issuer: 'https://idp.example.com',
  clientId: 'sy',
  clientSecret: 's',
  name: 'IdP',
  redirectUri: null,
  scopes: ['openid'],
  allowedEmailDomains: ['example.com'],
  requireVerifiedEmail: true,
  emailClaim: 'email',
  nameClaim: 'name',
  accounts: [
    { claim: 'groups', value: 'admins', account: 'acct_a', role: 'admin' },
    { claim: 'department', value: 'sales', account: 'acct_s', role: null },
  ],
  defaultRole: 'viewer',
  jit: true,
};
const ann = { sub: 's1', email: 'Ann@Example.com', email_verified: true, name: 'Ann' };

test('the first matching rule names the account and role (a list claim contains the value; a rule without a role takes the default)', () => {
  assert.deepEqual(identityOf(cfg, { ...ann, groups: ['x', 'admins'], department: 'sales' }), {
    email: 'Ann@Example.com',
    name: 'Ann',
    subject: 's1',
    accountId: 'acct_a',
    role: 'admin',
  });
  assert.deepEqual(identityOf(cfg, { ...ann, groups: ['x'], department: 'sales' }).accountId, 'acct_s');
  assert.equal(identityOf(cfg, { ...ann, department: 'sales' }).role, 'viewer');
  assert.equal(identityOf(cfg, { ...ann, name: undefined, department: 'sales' }).name, 'Ann', "no name: the email's local part");
  assert.throws(() => identityOf(cfg, { ...ann, groups: ['x'] }), /no oidc.accounts rule matches/);
  const everyone = { ...cfg, accounts: [{ claim: null, value: null, account: 'acct_all', role: null }] };
  assert.equal(identityOf(everyone, ann).accountId, 'acct_all');
});

test('an email that is missing, unverified or outside the allowed domains is refused (403)', () => {
  assert.throws(
    () => identityOf(cfg, { ...ann, email: undefined }),
    (e: { status: number; message: string }) => e.status === 403 && /no email/.test(e.message),
  );
  assert.throws(() => identityOf(cfg, { ...ann, email_verified: false, groups: ['admins'] }), /verified/);
  assert.throws(
    () => identityOf(cfg, { ...ann, email: 'ann@example.com.evil.org', groups: ['admins'] }),
    /example\.com\.evil\.org may not sign in/,
  );
  assert.throws(
    () => identityOf(cfg, { ...ann, email: 'ann@sub.example.com', groups: ['admins'] }),
    /sub\.example\.com may not sign in/,
    'no subdomains implied',
  );
  assert.equal(
    identityOf({ ...cfg, requireVerifiedEmail: false }, { ...ann, email_verified: undefined, groups: ['admins'] }).accountId,
    'acct_a',
  );
  assert.equal(identityOf({ ...cfg, allowedEmailDomains: ['*'] }, { ...ann, email: 'x@any.org', groups: ['admins'] }).accountId, 'acct_a');
});
