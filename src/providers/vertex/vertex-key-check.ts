import { sign } from 'node:crypto';
import type { ProviderConfig } from '../../catalog/types.ts';
import type { ServiceAccountKey } from '../byok-credential.ts';
import { fetchCheck, type CheckFailure } from '../http/fetch-check.ts';

// An account's own Vertex service account checked when it is stored (docs/byok.md): the
// OAuth 2.0 JWT-bearer exchange (RFC 7523) at the key's `token_uri`, as Google's client
// libraries do it — a JWT the key signs (RS256, `kid` the key id, issued by the account's
// email, audience the token endpoint, the cloud-platform scope, one hour), posted as
// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`. Google answers a
// token only for a key it knows and an account that exists and is enabled; its refusal's
// `error_description` names why, and becomes the check's reason. The token is not kept.
//
// `token_uri` comes from the account's JSON: only Google's token endpoints, or one on the
// operator's own Vertex base URL's origin (a proxy, an emulator), are called — never a host
// an account chose.

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GOOGLE_TOKEN_URIS = new Set([
  'https://oauth2.googleapis.com/token',
  'https://www.googleapis.com/oauth2/v4/token',
  'https://accounts.google.com/o/oauth2/token',
]);

/** The token endpoint the exchange may call for this key, or a failure naming why not. */
export function tokenUriFor(provider: Pick<ProviderConfig, 'id' | 'baseUrl'>, account: ServiceAccountKey): string | CheckFailure {
  const given =
    typeof account.token_uri === 'string' && account.token_uri !== '' ? account.token_uri : 'https://oauth2.googleapis.com/token';
  if (GOOGLE_TOKEN_URIS.has(given)) return given;
  let origin: string;
  try {
    origin = new URL(given).origin;
  } catch {
    return { reason: 'shape', message: `not a key provider "${provider.id}" (vertex) takes: "token_uri" is not a URL` };
  }
  if (origin === new URL(provider.baseUrl).origin) return given;
  return {
    reason: 'shape',
    message: `not a key provider "${provider.id}" (vertex) takes: "token_uri" is neither Google's token endpoint nor on the provider's base URL`,
  };
}

/** The signed assertion for the exchange. */
export function serviceAccountAssertion(account: ServiceAccountKey, audience: string, nowSeconds: number): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(typeof account.private_key_id === 'string' ? { kid: account.private_key_id } : {}) };
  const claims = { iss: account.client_email, scope: SCOPE, aud: audience, iat: nowSeconds, exp: nowSeconds + 3600 };
  const unsigned = `${b64(header)}.${b64(claims)}`;
  const signature = sign('RSA-SHA256', Buffer.from(unsigned), account.private_key).toString('base64url');
  return `${unsigned}.${signature}`;
}

/** Null when the exchange handed out a token; else why not. */
export async function checkVertexKey(
  provider: ProviderConfig,
  account: ServiceAccountKey,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<CheckFailure | null> {
  const tokenUri = tokenUriFor(provider, account);
  if (typeof tokenUri !== 'string') return tokenUri;
  const body = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: serviceAccountAssertion(account, tokenUri, Math.floor(now() / 1000)),
  }).toString();
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  return fetchCheck(
    provider.id,
    tokenUri,
    { method: 'POST', headers, body },
    timeoutMs,
    (status, _res, text) => refusalOf(provider.id, status, text),
    (text) => {
      const token = parseObject(text)?.access_token;
      return typeof token === 'string' && token !== ''
        ? null
        : { reason: 'upstream_error', message: `provider "${provider.id}": the token endpoint answered without an access token` };
    },
  );
}

/** Google's OAuth refusal (`{error, error_description}`) as a named failure. */
function refusalOf(providerId: string, status: number, text: string): CheckFailure {
  const o = parseObject(text);
  const error = typeof o?.error === 'string' ? o.error : '';
  const description = typeof o?.error_description === 'string' ? o.error_description.slice(0, 200) : '';
  const said = error === '' ? `HTTP ${status}` : `${error}${description === '' ? '' : `: ${description}`}`;
  const at = `provider "${providerId}"'s token endpoint`;
  if (/signature/i.test(description))
    return {
      reason: 'bad_signature',
      message: `${at} refused the service account's signature (${said}: the key was deleted, or is not this account's)`,
    };
  if (/not found|does not exist|invalid_client/i.test(`${error} ${description}`))
    return { reason: 'unknown_key', message: `${at} does not know the service account (${said})` };
  if (/expired|timeframe|iat|exp\b/i.test(description))
    return { reason: 'expired', message: `${at} refused the assertion's time (${said}: check the gateway's clock)` };
  if (status === 400 || status === 401 || status === 403)
    return { reason: 'refused', message: `${at} refused the service account (${said})` };
  return { reason: 'upstream_error', message: `${at} answered the check with ${said}` };
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
