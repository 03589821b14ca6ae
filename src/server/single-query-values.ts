import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';

/**
 * Every query parameter of every route is one value: `?id=a&id=b` (which the querystring
 * parser turns into an array no handler expects) is refused here, once for all routes, with
 * a 400 naming the parameter, before any handler, database query or CSV stream sees it.
 */
export function installSingleQueryValues(app: FastifyInstance): void {
  app.addHook('onRequest', refuseRepeatedQueryParameters);
}

// A callback hook (no promise per request: it never waits).
function refuseRepeatedQueryParameters(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (query !== undefined && query !== null) {
    for (const name in query) {
      const value = query[name];
      if (Array.isArray(value)) {
        const shown = name.length > 64 ? `${name.slice(0, 64)}...` : name;
        done(
          new GatewayError('invalid_parameter', `The query parameter "${shown}" is given ${value.length} times; give it once.`, {
            param: shown,
          }),
        );
        return;
      }
    }
  }
  done();
}
