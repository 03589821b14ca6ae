import { ConfigError } from './config-error.ts';
import { at, checkKeys, optBoolean, optEnum, optString, optStringList, readList, readMapping, readString } from './read-fields.ts';

/**
 * `oidc:` — single sign-on to the dashboard through an OpenID Connect provider (Okta, Entra
 * ID, Google, Keycloak, Authentik, ...; docs/governance.md "Single sign-on",
 * docs/configuration.md). Absent: no SSO. `client_secret` is a secret field (`env:`,
 * `file:`; resolved again on every reload). The routes read the configuration in force on
 * each sign-in, so a reload changes everything here without a restart.
 */
export interface OidcConfig {
  /** The issuer's URL exactly as its discovery document names it (https; http only on loopback). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label: "Sign in with <name>". */
  name: string;
  /** Where the provider sends the browser back; absent: `server.public_origin` + base path + the callback route. */
  redirectUri: string | null;
  /** Asked for at the provider (always with `openid`). */
  scopes: string[];
  /** Lower-case domains an email must be in (`*`: any; the provider's own restriction then matters). */
  allowedEmailDomains: string[];
  /** Refuse an ID token whose `email_verified` is not true (Entra ID sends none: false there). */
  requireVerifiedEmail: boolean;
  emailClaim: string;
  nameClaim: string;
  /** Claim → account and role, the first match wins; a rule without `claim` matches everyone. */
  accounts: OidcAccountRule[];
  /** The role of a rule that names none. */
  defaultRole: OidcRole;
  /** Create the member on their first sign-in; false: only existing members of the account may sign in. */
  jit: boolean;
}

export type OidcRole = 'owner' | 'admin' | 'member' | 'viewer';
const ROLES: readonly OidcRole[] = ['owner', 'admin', 'member', 'viewer'];

export interface OidcAccountRule {
  /** A claim of the ID token (a string, or a list of strings such as `groups`); null: any sign-in. */
  claim: string | null;
  /** The value the claim must be (or contain, for a list). */
  value: string | null;
  account: string;
  role: OidcRole | null;
}

const DOMAIN = /^(\*|[a-z0-9-]+(\.[a-z0-9-]+)+)$/;

export function parseOidc(value: unknown, path: string): OidcConfig | null {
  if (value === undefined || value === null) return null;
  const fields = readMapping(value, path);
  checkKeys(
    fields,
    [
      'issuer',
      'client_id',
      'client_secret',
      'name',
      'redirect_uri',
      'scopes',
      'allowed_email_domains',
      'require_verified_email',
      'email_claim',
      'name_claim',
      'accounts',
      'default_role',
      'jit',
    ],
    path,
  );
  const issuer = readUrl(fields.issuer, at(path, 'issuer'));
  const redirect = optString(fields, 'redirect_uri', path);
  const scopes = optStringList(fields, 'scopes', path) ?? ['openid', 'email', 'profile'];
  const domains = readList(fields.allowed_email_domains, at(path, 'allowed_email_domains')).map((d, i) => {
    const domain = readString(d, at(at(path, 'allowed_email_domains'), i))
      .trim()
      .toLowerCase()
      .replace(/^@/, '');
    if (!DOMAIN.test(domain))
      throw new ConfigError(at(at(path, 'allowed_email_domains'), i), `"${domain}" is not a domain (example.com), nor "*" (any)`);
    return domain;
  });
  if (domains.length === 0)
    throw new ConfigError(
      at(path, 'allowed_email_domains'),
      'name at least one domain (example.com), or "*" to accept any the provider signs in',
    );
  const rules = readList(fields.accounts, at(path, 'accounts')).map((r, i) => parseRule(r, at(at(path, 'accounts'), i)));
  if (rules.length === 0)
    throw new ConfigError(
      at(path, 'accounts'),
      'map at least one claim (or everyone) to an account: - { account: acct_..., role: member }',
    );
  return {
    issuer,
    clientId: readString(fields.client_id, at(path, 'client_id')),
    clientSecret: readString(fields.client_secret, at(path, 'client_secret')),
    name: optString(fields, 'name', path) ?? 'single sign-on',
    redirectUri: redirect === undefined ? null : readUrl(redirect, at(path, 'redirect_uri')),
    scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
    allowedEmailDomains: domains,
    requireVerifiedEmail: optBoolean(fields, 'require_verified_email', path) ?? true,
    emailClaim: optString(fields, 'email_claim', path) ?? 'email',
    nameClaim: optString(fields, 'name_claim', path) ?? 'name',
    accounts: rules,
    defaultRole: optEnum(fields, 'default_role', ROLES, path) ?? 'member',
    jit: optBoolean(fields, 'jit', path) ?? true,
  };
}

function parseRule(value: unknown, path: string): OidcAccountRule {
  const fields = readMapping(value, path);
  checkKeys(fields, ['claim', 'value', 'account', 'role'], path);
  const claim = optString(fields, 'claim', path) ?? null;
  const match = optString(fields, 'value', path) ?? null;
  if ((claim === null) !== (match === null))
    throw new ConfigError(
      path,
      '"claim" and "value" go together (a claim and the value it must have); neither: the rule matches every sign-in',
    );
  return {
    claim,
    value: match,
    account: readString(fields.account, at(path, 'account')),
    role: optEnum(fields, 'role', ROLES, path) ?? null,
  };
}

/** https, or http on a loopback host (a provider started on the machine, as the tests do). */
function readUrl(value: unknown, path: string): string {
  const text = readString(value, path);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(path, 'expected an absolute URL (https://...)');
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new ConfigError(path, 'must be https (http only on a loopback host: localhost, 127.0.0.1, [::1])');
  return text;
}
