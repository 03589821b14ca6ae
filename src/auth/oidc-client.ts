import type * as Oidc from 'openid-client';
import type { OidcConfig } from '../config/parse-oidc.ts';
import { GatewayError } from '../errors/gateway-error.ts';

// The relying party of the dashboard's single sign-on, over openid-client (panva): the
// provider's discovery document, the authorization code flow with PKCE (S256), state and
// nonce, and the ID token's checks — its signature against the provider's JWKS
// (enableNonRepudiationChecks: without it an ID token from the token endpoint is trusted on
// TLS alone), `iss`, `aud`, `azp`, `exp`, `iat` and `nonce`. Nothing here reads a JWT by hand.
// openid-client (with jose and oauth4webapi) is loaded by the first sign-in, not at start
// (docs/operations.md, "Memory and GC").

let loading: Promise<typeof Oidc> | null = null;
function openidClient(): Promise<typeof Oidc> {
  loading ??= import('openid-client').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/** What a sign-in keeps between its start and the callback (server side, sso-store.ts). */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Seconds an HTTP call to the provider may take. */
const PROVIDER_TIMEOUT_S = 10;

/**
 * One provider's client, discovered once per (issuer, client id, client secret): a reload
 * that rotates the secret or changes the provider makes a new one at the next sign-in. A
 * discovery that failed is tried again by the next sign-in.
 */
export class OidcClient {
  private cached: { key: string; config: Promise<Oidc.Configuration> } | null = null;

  private configuration(oidc: typeof Oidc, cfg: OidcConfig): Promise<Oidc.Configuration> {
    const key = JSON.stringify([cfg.issuer, cfg.clientId, cfg.clientSecret]);
    if (this.cached?.key === key) return this.cached.config;
    const insecure = new URL(cfg.issuer).protocol === 'http:'; // a loopback issuer only (parse-oidc.ts)
    const config = oidc.discovery(new URL(cfg.issuer), cfg.clientId, undefined, oidc.ClientSecretBasic(cfg.clientSecret), {
      execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
      timeout: PROVIDER_TIMEOUT_S,
    });
    const entry = { key, config };
    this.cached = entry;
    void config.catch(() => {
      if (this.cached === entry) this.cached = null;
    });
    return config.catch((err: unknown) => {
      throw unavailable('its discovery document could not be read', err);
    });
  }

  /** A new sign-in: where to send the browser, and the checks to keep for its callback. */
  async begin(cfg: OidcConfig, redirectUri: string): Promise<{ url: URL; checks: OidcChecks }> {
    const oidc = await openidClient();
    const config = await this.configuration(oidc, cfg);
    const checks: OidcChecks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: cfg.scopes.join(' '),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url, checks };
  }

  /**
   * The callback: the code exchanged (with the PKCE verifier) and the ID token verified;
   * its claims. A refusal of the provider's, or a token that does not verify, is a 401
   * naming why; a provider that cannot be reached, a 502.
   */
  async finish(cfg: OidcConfig, redirectUri: string, query: URLSearchParams, checks: OidcChecks): Promise<Record<string, unknown>> {
    const oidc = await openidClient();
    const config = await this.configuration(oidc, cfg);
    const current = new URL(redirectUri);
    current.search = query.toString();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new GatewayError('authentication_required', 'The provider answered without an ID token.');
      return claims;
    } catch (err) {
      throw refusal(oidc, err);
    }
  }
}

function refusal(oidc: typeof Oidc, err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof oidc.AuthorizationResponseError) {
    return new GatewayError('authentication_required', `The provider refused the sign-in: ${described(err.error, err.error_description)}.`);
  }
  // The gateway's own client refused (a wrong client id or secret): the operator's to fix, not the person's.
  if (err instanceof oidc.WWWAuthenticateChallengeError) {
    const params = err.cause[0]?.parameters ?? {};
    return unavailable(
      `it refused the gateway's client credentials: ${described(params.error ?? String(err.status), params.error_description)}`,
      null,
    );
  }
  if (err instanceof oidc.ResponseBodyError) {
    if (err.error === 'invalid_client' || err.error === 'unauthorized_client')
      return unavailable(`it refused the gateway's client credentials: ${described(err.error, err.error_description)}`, null);
    return new GatewayError(
      'authentication_required',
      `The provider refused the sign-in's code: ${described(err.error, err.error_description)}. Sign in again.`,
    );
  }
  // openid-client's checks (signature, iss, aud, exp, nonce, state, ...) throw ClientError with an
  // OAUTH_* code; the check's own words are its cause's ('unexpected JWT "aud" (audience) claim value').
  if (
    err instanceof oidc.ClientError &&
    err.code !== undefined &&
    err.code.startsWith('OAUTH_') &&
    err.code !== 'OAUTH_RESPONSE_IS_NOT_CONFORM'
  ) {
    const detail = err.cause instanceof Error ? err.cause.message : err.message;
    return new GatewayError('authentication_required', `The provider's ID token or answer did not verify: ${detail}. Sign in again.`);
  }
  return unavailable('it could not be reached or answered something unreadable', err);
}

function described(error: string, description: string | undefined): string {
  return description === undefined || description === '' ? error : `${error} (${description})`;
}

function unavailable(what: string, err: unknown): GatewayError {
  const why = err === null ? '' : ` (${err instanceof Error ? err.message : JSON.stringify(err)})`;
  return new GatewayError('sso_unavailable', `The single sign-on provider failed: ${what}${why}.`);
}
