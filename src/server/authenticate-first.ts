import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { AuthContext, Authenticator, KeyHeaders } from '../auth/authenticate.ts';

/** How a route reads the API key from the headers (each dialect has its rule). */
export type KeyReader = (headers: IncomingHttpHeaders) => string | undefined;

const authOf = new WeakMap<FastifyRequest, AuthContext>();

/**
 * An `onRequest` hook: authenticates from the headers alone, before any byte of the body
 * is read or parsed, so an unauthenticated client cannot make the gateway buffer and
 * parse a body. A failure (401) is rendered by the route's error handler, in its
 * dialect's shape, and closes the connection when the body is still arriving.
 */
export function authenticateFirst(auth: Authenticator, readKey: KeyReader, keyHeaders?: KeyHeaders): (request: FastifyRequest) => Promise<void> {
  return async function authenticateFromHeaders(request: FastifyRequest): Promise<void> {
    authOf.set(request, await auth.authenticate(readKey(request.headers), keyHeaders));
  };
}

/** The identity `authenticateFirst` established for this request. */
export function requestAuth(request: FastifyRequest): AuthContext {
  const ctx = authOf.get(request);
  if (ctx === undefined) throw new Error('route registered without authenticateFirst');
  return ctx;
}
