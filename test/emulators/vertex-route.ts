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
export type VertexTestCredentials =
  | { clientEmail: string; /** PEM. */ publicKey: string }
  | { accessToken: string };

const VERTEX_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)(\?.*)?$/;
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export function parseVertexPath(path: string): VertexRoute | null {
  const m = VERTEX_PATH.exec(path);
  if (m === null) return null;
  return { project: m[1]!, location: m[2]!, publisher: m[3]!, model: decodeURIComponent(m[4]!), method: m[5]!, query: m[6] ?? '' };
}

/** Vertex's 401 body when the bearer token is not one `credentials` signed (google.rpc shape), else null. */
export function vertexTokenRefusal(headers: IncomingHttpHeaders, credentials: VertexTestCredentials | undefined): Record<string, unknown> | null {
  const auth = headers.authorization ?? '';
  if (credentials !== undefined && auth.startsWith('Bearer ')) {
    const token = auth.slice(7);
    if ('accessToken' in credentials ? token === credentials.accessToken : validJwt(token, credentials)) return null;
  }
  return {
    error: {
      code: 401,
      message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
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
    if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), createPublicKey(credentials.publicKey), Buffer.from(signature, 'base64url'))) return false;
    return claims.iss === credentials.clientEmail && (claims.scope ?? '').split(' ').includes(SCOPE) && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
  } catch {
    return false;
  }
}
