import type { FastifyInstance } from 'fastify';
import { generationView } from './generation-view.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Services } from '../services.ts';
import { access, requestAuth } from '../route-access.ts';

/** GET /api/v1/generation?id=: one generation record, to any key of the account that made it. */
export function registerGenerationLookupRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    app.get(`${prefix}/generation`, access('key'), async (request) => {
      const auth = requestAuth(request);
      const id = (request.query as { id?: string }).id;
      if (id === undefined || id === '') throw new GatewayError('missing_parameter', 'Missing required query parameter: "id".', { param: 'id' });
      const row = await services.generations.getRecord(id);
      if (row === undefined || row.accountId !== auth.account.id) throw new GatewayError('not_found', `No generation "${id}" for this account.`);
      return { data: generationView(row) };
    });
  }
}
