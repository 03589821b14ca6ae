import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from './load-config.ts';

// `oidc:` — the shape, its defaults, the secret by reference, and each refusal naming its field.

const dir = mkdtempSync(join(tmpdir(), 'sy-oidc-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const BASE = 'sim: true\nserver: { public_origin: "https://gw.example.com" }\n';
const MINIMAL =
  'oidc:\n  issuer: https://idp.example.com\n  client_id: sy\n  client_secret: env:OIDC_SECRET\n  allowed_email_domains: [Example.COM]\n  accounts: [{ account: acct_1 }]\n';
const load = (yaml: string, env: Record<string, string> = { OIDC_SECRET: 'from-env' }) => parseConfig(parse(yaml), env);

test('oidc: its defaults, the client secret from its reference, domains in lower case', () => {
  assert.equal(load(BASE).oidc, null);
  assert.deepEqual(load(BASE + MINIMAL).oidc, {
    issuer: 'https://idp.example.com',
    clientId: 'sy',
    clientSecret: 'from-env',
    name: 'single sign-on',
    redirectUri: null,
    scopes: ['openid', 'email', 'profile'],
    allowedEmailDomains: ['example.com'],
    requireVerifiedEmail: true,
    emailClaim: 'email',
    nameClaim: 'name',
    accounts: [{ claim: null, value: null, account: 'acct_1', role: null }],
    defaultRole: 'member',
    jit: true,
  });
  const file = join(dir, 'secret');
  writeFileSync(file, 'from-file\n');
  const full = load(`${BASE}oidc:
  issuer: http://127.0.0.1:9000/realms/x
  client_id: sy
  client_secret: file:${file}
  name: Keycloak
  redirect_uri: https://gw.example.com/cb
  scopes: [email, groups]
  allowed_email_domains: ["*"]
  require_verified_email: false
  email_claim: preferred_username
  name_claim: given_name
  accounts:
    - { claim: groups, value: admins, account: acct_1, role: owner }
  default_role: viewer
  jit: false
`).oidc!;
  assert.equal(full.clientSecret, 'from-file');
  assert.deepEqual(full.scopes, ['openid', 'email', 'groups'], 'openid is always asked for');
  assert.deepEqual(full.accounts, [{ claim: 'groups', value: 'admins', account: 'acct_1', role: 'owner' }]);
  assert.equal(full.jit, false);
  assert.equal(full.redirectUri, 'https://gw.example.com/cb');
});

test('oidc: each mistake is refused, naming the field', () => {
  for (const [yaml, message] of [
    [MINIMAL.replace('https://idp.example.com', 'http://idp.example.com'), /oidc\.issuer: must be https/],
    [MINIMAL.replace('  client_id: sy\n', ''), /oidc\.client_id/],
    [MINIMAL.replace('env:OIDC_SECRET', 'env:MISSING'), /oidc\.client_secret: the environment variable MISSING/],
    [MINIMAL.replace('[Example.COM]', '[]'), /oidc\.allowed_email_domains: name at least one domain/],
    [MINIMAL.replace('[Example.COM]', '["not a domain"]'), /oidc\.allowed_email_domains\[0\]/],
    [MINIMAL.replace('[{ account: acct_1 }]', '[]'), /oidc\.accounts: map at least one/],
    [MINIMAL.replace('{ account: acct_1 }', '{ claim: groups, account: acct_1 }'), /oidc\.accounts\[0\]: "claim" and "value" go together/],
    [MINIMAL.replace('{ account: acct_1 }', '{ account: acct_1, role: boss }'), /oidc\.accounts\[0\]\.role/],
    [`${MINIMAL}  client_secrt: x\n`, /oidc\.client_secrt: unknown field/],
  ] as const) {
    assert.throws(() => load(BASE + yaml), message, yaml);
  }
  // The redirect URI is built from server.public_origin, never from a request's Host.
  assert.throws(() => load(`sim: true\n${MINIMAL}`), /oidc: needs oidc.redirect_uri or server.public_origin/);
});
