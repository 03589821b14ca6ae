import type { OidcConfig, OidcRole } from '../config/parse-oidc.ts';
import { GatewayError } from '../errors/gateway-error.ts';

// What a verified ID token's claims make of a sign-in (docs/governance.md "Single sign-on"):
// the email (verified, in an allowed domain), the display name, and the account and role of
// the first `oidc.accounts` rule the claims match. Each refusal is a 403 that says why, so
// the person (or their admin) knows what to change.

export interface OidcIdentity {
  email: string;
  name: string;
  /** The provider's `sub`: who this is at the provider, for the audit log. */
  subject: string;
  accountId: string;
  role: OidcRole;
}

const EMAIL = /^[^\s@]+@([^\s@]+)$/;

export function identityOf(cfg: OidcConfig, claims: Record<string, unknown>): OidcIdentity {
  const raw = claims[cfg.emailClaim];
  const match = typeof raw === 'string' ? EMAIL.exec(raw.trim()) : null;
  if (match === null)
    throw new GatewayError(
      'forbidden',
      `The provider's ID token has no email in its "${cfg.emailClaim}" claim: ask for the email scope, or set oidc.email_claim.`,
    );
  const email = raw as string;
  if (cfg.requireVerifiedEmail && claims.email_verified !== true) {
    throw new GatewayError('forbidden', `The provider does not say ${email} is verified (email_verified): only verified emails sign in.`);
  }
  const domain = match[1]!.toLowerCase();
  if (!cfg.allowedEmailDomains.includes('*') && !cfg.allowedEmailDomains.includes(domain)) {
    throw new GatewayError('forbidden', `Emails of ${domain} may not sign in to this gateway (oidc.allowed_email_domains).`);
  }
  const rule = cfg.accounts.find((r) => r.claim === null || claimHas(claims[r.claim], r.value!));
  if (rule === undefined)
    throw new GatewayError(
      'forbidden',
      `No account of this gateway takes ${email} (no oidc.accounts rule matches the sign-in's claims): ask the operator.`,
    );
  const name = claims[cfg.nameClaim];
  return {
    email: email.trim(),
    name: typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 200) : email.trim().split('@')[0]!,
    subject: typeof claims.sub === 'string' ? claims.sub : '',
    accountId: rule.account,
    role: rule.role ?? cfg.defaultRole,
  };
}

/** A string claim equal to the value, or a list claim (`groups`, `roles`) that contains it. */
function claimHas(claim: unknown, value: string): boolean {
  if (typeof claim === 'string') return claim === value;
  if (typeof claim === 'number' || typeof claim === 'boolean') return String(claim) === value;
  return Array.isArray(claim) && claim.some((c) => c === value);
}
