import type { FastifyInstance } from 'fastify';
import { toModelRecord } from '../../catalog/encode-model-record.ts';
import { readAnyApiKey } from '../request-helpers.ts';
import type { Services } from '../services.ts';

/** GET /v1/models: the catalog, serialized once at boot. A valid key is required (spec: an auth check), as a bearer token or `x-api-key`. */
export function registerModelsRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  const body = JSON.stringify({ data: services.catalog.models.map(toModelRecord) });
  for (const prefix of prefixes) {
    app.get(`${prefix}/models`, async (request, reply) => {
      services.auth.authenticate(readAnyApiKey(request.headers));
      reply.header('content-type', 'application/json; charset=utf-8');
      return body;
    });
  }
}
