import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { GatewayError } from '../../errors/gateway-error.ts';
import { csrfTokenOf } from './session-store.ts';
import { SESSION_PATH } from './session-routes.ts';
import { checkOrigin, sessionCookieName } from './session-cookie.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The dashboard's session cookie on the management, admin and report API (/api/v1/...):
 * a request with the cookie and no key of its own is authenticated as the session, whose
 * token goes where the routes read a key. A state-changing request must also carry the
 * session's CSRF token in `X-CSRF-Token` (the page reads it from GET /dashboard/session;
 * another site can neither read it nor, with SameSite=Strict, send the cookie) and, if it
 * names an Origin, this gateway's (`server.public_origin`, else the request's Host). The
 * /v1 model routes never take the cookie. Over https only the `__Host-` cookie counts
 * (session-cookie.ts).
 */
export function installSessionCookieAuth(app: FastifyInstance, publicOrigin: string | undefined): void {
  // Parses and serializes cookies (its own hook is not relied on: ours parses the header).
  app.register(fastifyCookie);
  // A callback hook (every request passes here; an async one is a promise each).
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      sessionAsKey(request, app, publicOrigin);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
}

/** The session cookie's token as the request's key, when it has the cookie and no key of its own. */
function sessionAsKey(request: FastifyRequest, app: FastifyInstance, publicOrigin: string | undefined): void {
  const url = request.url;
  if (!url.startsWith('/api/v1/')) return;
  if (request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined) return;
  const header = request.headers.cookie;
  if (header === undefined) return;
  const token = app.parseCookie(header)[sessionCookieName(request)];
  if (token === undefined || token === '') return;
  // Signing in again with an old cookie still present takes the key in the body.
  if (request.method === 'POST' && (url.split('?')[0] === SESSION_PATH || url.startsWith('/api/v1/sessions/email'))) return;
  if (!SAFE_METHODS.has(request.method)) {
    checkOrigin(request, publicOrigin);
    if (request.headers[CSRF_HEADER] !== csrfTokenOf(token)) {
      throw new GatewayError('forbidden', 'Missing or wrong X-CSRF-Token header for this dashboard session.');
    }
  }
  request.headers.authorization = `Bearer ${token}`;
}
