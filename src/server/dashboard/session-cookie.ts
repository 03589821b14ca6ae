import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.ts';

// The session cookie's name and attributes, and the Origin check of the dashboard's
// state-changing requests. Over https the cookie is `__Host-sy_session`: the browser then
// takes it only with Secure, Path=/ and no Domain, so a sibling subdomain (or a plain-http
// page of the same host) can neither set nor overwrite it. Over plain http (a gateway on
// loopback or a private network) the name has no prefix, which browsers would refuse there.

export const SESSION_COOKIE = 'sy_session';
export const HOST_SESSION_COOKIE = '__Host-sy_session';

/** The cookie's name for this request's scheme (behind a proxy: its X-Forwarded-Proto, when `server.trust_proxy` believes it). */
export function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? HOST_SESSION_COOKIE : SESSION_COOKIE;
}

export function sessionCookiePath(basePath: string): string {
  return basePath === '' ? '/' : `${basePath}/`;
}

/** httpOnly, SameSite=Strict; over https Secure and Path=/ (the `__Host-` rules), else the dashboard's path. */
export function sessionCookieOptions(
  request: FastifyRequest,
  basePath: string,
): { path: string; httpOnly: true; sameSite: 'strict'; secure: boolean } {
  const https = request.protocol === 'https';
  return { path: https ? '/' : sessionCookiePath(basePath), httpOnly: true, sameSite: 'strict', secure: https };
}

/**
 * A browser's cross-site request names another origin: refused (login CSRF). With
 * `server.public_origin` the Origin must be exactly it (scheme, host and port); without,
 * its host must be the request's own Host. Non-browser clients send no Origin.
 */
export function checkOrigin(request: FastifyRequest, publicOrigin: string | undefined): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let parsed: URL | null;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = null;
  }
  const matches = parsed !== null && (publicOrigin !== undefined ? parsed.origin === publicOrigin : parsed.host === request.headers.host);
  if (!matches) throw new GatewayError('forbidden', 'Cross-origin request refused: the Origin does not match this gateway.');
}
