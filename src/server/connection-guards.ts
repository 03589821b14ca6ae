import type { IncomingMessage, Server } from 'node:http';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config/types.ts';
import { GatewayError } from '../errors/gateway-error.ts';

// What bounds a connection before the gateway knows anything of its client
// (docs/security.md, "Limits and timeouts"):
//  - the whole request (headers and body) must arrive within `requestTimeoutMs`, its
//    headers within `headersTimeoutMs` (Node's http server answers 408 and closes);
//  - a connection that sends nothing for `idleTimeoutMs` while its request is received is
//    closed; the idle timer is suspended while the answer is produced (a reasoning model
//    may be silent for minutes, `timeouts.request_ms` bounds that) and re-armed once the
//    whole answer is handed to the socket, so a client that stops reading is dropped too;
//  - an idle keep-alive connection is closed after `keepAliveTimeoutMs`;
//  - an error answered before the body was read (401, 404, 413) closes the connection
//    instead of reading and discarding the rest of the body.

/** Fastify's server options for the limits and timeouts of `server:`. */
export function serverOptions(s: ServerConfig): FastifyHttpOptions<Server> {
  return {
    bodyLimit: s.bodyLimitBytes,
    requestTimeout: s.requestTimeoutMs,
    keepAliveTimeout: s.keepAliveTimeoutMs,
    connectionTimeout: s.idleTimeoutMs,
    http: {
      headersTimeout: s.headersTimeoutMs,
      requestTimeout: s.requestTimeoutMs,
      // Node checks the request and headers timeouts on this interval (30 s by default),
      // so a timeout takes effect within a quarter of its length.
      connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(Math.min(s.headersTimeoutMs, s.requestTimeoutMs) / 4))),
    },
  };
}

export function installConnectionGuards(app: FastifyInstance, s: ServerConfig): void {
  const idleMs = s.idleTimeoutMs;
  // Callback hooks, not async ones: each async hook is a promise and a turn of the microtask
  // queue per request, for work that never waits (docs/benchmarks.md, "Fifth round").
  app.addHook('onRequest', (request, _reply, done) => {
    // Node re-arms nothing for a second request on a keep-alive connection: arm it here.
    request.raw.socket.setTimeout(idleMs);
    // No route: answer before the body is read (Fastify would parse it for the 404 handler).
    if (request.is404) done(new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
    else done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    request.raw.socket.setTimeout(0);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    resumeIdleTimeout(request, idleMs);
    // Answered without reading the body (a route that takes none, or a refusal): close rather than drain it.
    closeIfBodyPending(request, reply);
    done(null, payload);
  });
}

/** The answer is wholly handed to the socket (a hijacked stream ends): the idle timer runs again. */
export function resumeIdleTimeout(request: FastifyRequest, idleMs: number): void {
  const socket = request.raw.socket;
  if (!socket.destroyed) socket.setTimeout(idleMs);
}

/** Part of the body is still on the wire: the request's Content-Length or chunked body is not read to its end. */
export function bodyPending(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined;
}

/** An error answered while the body is still arriving: close the connection rather than read the rest. */
export function closeIfBodyPending(request: FastifyRequest, reply: FastifyReply): void {
  if (bodyPending(request.raw)) reply.header('connection', 'close');
}
