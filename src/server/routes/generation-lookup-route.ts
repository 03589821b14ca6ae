import type { FastifyInstance } from 'fastify';
import { generationView } from './generation-view.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Services } from '../services.ts';
import { access, requestAuth } from '../route-access.ts';
import type { AuthContext } from '../../auth/authenticate.ts';
import { ownKeysOnly } from '../../auth/roles.ts';

/** A caller whose role is `member` reads the records of their own keys only (docs/governance.md). */
async function mayRead(services: Services, auth: AuthContext, keyHash: string): Promise<boolean> {
  if (!ownKeysOnly(auth)) return true;
  const own = auth.member?.id;
  return own !== undefined && (await services.accounts.getKey(keyHash))?.memberId === own;
}

/** GET /api/v1/generation?id=: one generation record, to any key of the account that made it. */
export function registerGenerationLookupRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    app.get(`${prefix}/generation`, access('key'), async (request) => {
      const auth = requestAuth(request);
      const id = (request.query as { id?: string }).id;
      if (id === undefined || id === '') throw new GatewayError('missing_parameter', 'Missing required query parameter: "id".', { param: 'id' });
      const row = await services.generations.getRecord(id);
      if (row === undefined || row.accountId !== auth.account.id || !(await mayRead(services, auth, row.keyHash))) {
        throw new GatewayError('not_found', `No generation "${id}" for this account.`);
      }
      return { data: generationView(row) };
    });
  }
}
