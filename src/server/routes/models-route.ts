import type { FastifyInstance } from 'fastify';
import { extractBearer } from '../../auth/authenticate.ts';
import { toModelRecord } from '../../catalog/encode-model-record.ts';
import type { Services } from '../services.ts';

/** GET /v1/models: the catalog, serialized once at boot. A valid key is required (spec: an auth check). */
export function registerModelsRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  const body = JSON.stringify({ data: services.catalog.models.map(toModelRecord) });
  for (const prefix of prefixes) {
    app.get(`${prefix}/models`, async (request, reply) => {
      services.auth.authenticate(extractBearer(request.headers.authorization));
      reply.header('content-type', 'application/json; charset=utf-8');
      return body;
    });
  }
}
