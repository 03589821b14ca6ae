// Vertex AI's paths, which the Gemini and Anthropic emulators also answer under:
// `/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`,
// authenticated by a bearer token: a service account's self-signed JWT (what the gateway
// sends for a service-account key: RS256 over the account's key, issued by its email, with
// the cloud-platform scope, not expired), or an access token a token endpoint issued.

import { createPublicKey, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface VertexRoute {
  project: string;
  location: string;
  publisher: string;
  model: string;
  method: string;
  /** The query string, with its `?`, or ''. */
  query: string;
}

/**
 * Whose tokens the emulator takes: a service account's self-signed JWTs (its email and
 * public key), or one OAuth access token (what a token endpoint handed out).
 */
export type VertexTestCredentials = { clientEmail: string; /** PEM. */ publicKey: string } | { accessToken: string };

const VERTEX_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)(\?.*)?$/;
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export function parseVertexPath(path: string): VertexRoute | null {
  const m = VERTEX_PATH.exec(path);
  if (m === null) return null;
  return { project: m[1]!, location: m[2]!, publisher: m[3]!, model: decodeURIComponent(m[4]!), method: m[5]!, query: m[6] ?? '' };
}

/** Vertex's 401 body when the bearer token is not one `credentials` signed (google.rpc shape), else null. */
export function vertexTokenRefusal(
  headers: IncomingHttpHeaders,
  credentials: VertexTestCredentials | undefined,
): Record<string, unknown> | null {
  const auth = headers.authorization ?? '';
  if (credentials !== undefined && auth.startsWith('Bearer ')) {
    const token = auth.slice(7);
    if ('accessToken' in credentials ? token === credentials.accessToken : validJwt(token, credentials)) return null;
  }
  return {
    error: {
      code: 401,
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      status: 'UNAUTHENTICATED',
    },
  };
}

function validJwt(token: string, credentials: { clientEmail: string; publicKey: string }): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [head, body, signature] = parts as [string, string, string];
  try {
    const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { iss?: string; scope?: string; exp?: number };
    if (header.alg !== 'RS256') return false;
    if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), createPublicKey(credentials.publicKey), Buffer.from(signature, 'base64url')))
      return false;
    return (
      claims.iss === credentials.clientEmail &&
      (claims.scope ?? '').split(' ').includes(SCOPE) &&
      typeof claims.exp === 'number' &&
      claims.exp * 1000 > Date.now()
    );
  } catch {
    return false;
  }
}

/** Where the emulators answer Google's OAuth token endpoint (a service account's `token_uri` pointed here). */
export const TOKEN_PATH = '/token';
const SHORT_LIVED =
  'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';

/**
 * Google's OAuth 2.0 token endpoint's answer to a JWT-bearer exchange (RFC 7523, as
 * `oauth2.googleapis.com/token` takes a service account's assertion): the assertion must be
 * RS256 over the account's key, issued by its email, for this endpoint (`aud`), with a scope,
 * at most an hour long and in a reasonable timeframe; Google's `invalid_grant` refusals
 * otherwise. `audience` is this endpoint's URL.
 */
export function tokenExchangeAnswer(
  form: string,
  audience: string,
  credentials: VertexTestCredentials | undefined,
  now = Date.now(),
): { status: number; json: Record<string, unknown> } {
  const params = new URLSearchParams(form);
  const refuse = (error: string, description: string) => ({ status: 400, json: { error, error_description: description } });
  if (params.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
    return refuse('unsupported_grant_type', `Invalid grant_type: ${params.get('grant_type') ?? ''}`);
  const parts = (params.get('assertion') ?? '').split('.');
  if (parts.length !== 3) return refuse('invalid_request', 'Invalid JWT payload.');
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: string };
  let claims: { iss?: string; aud?: string; scope?: string; iat?: number; exp?: number };
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as typeof header;
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return refuse('invalid_request', 'Invalid JWT payload.');
  }
  if (credentials === undefined || 'accessToken' in credentials || claims.iss !== credentials.clientEmail)
    return refuse('invalid_grant', 'Invalid grant: account not found');
  if (
    header.alg !== 'RS256' ||
    !verify('RSA-SHA256', Buffer.from(`${head}.${body}`), createPublicKey(credentials.publicKey), Buffer.from(signature, 'base64url'))
  ) {
    return refuse('invalid_grant', 'Invalid JWT Signature.');
  }
  if (claims.aud !== audience) return refuse('invalid_grant', 'Invalid JWT: Failed audience check.');
  const nowS = Math.floor(now / 1000);
  if (
    typeof claims.iat !== 'number' ||
    typeof claims.exp !== 'number' ||
    claims.exp - claims.iat > 3600 ||
    claims.iat > nowS + 300 ||
    claims.exp < nowS
  )
    return refuse('invalid_grant', SHORT_LIVED);
  if (typeof claims.scope !== 'string' || claims.scope === '') return refuse('invalid_scope', 'Empty or missing scope not allowed.');
  return { status: 200, json: { access_token: `ya29.emulator-${claims.iss}-${claims.iat}`, expires_in: 3599, token_type: 'Bearer' } };
}
