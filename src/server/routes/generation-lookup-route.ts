import type { FastifyInstance } from 'fastify';
import { generationView } from './generation-view.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { access, requestAuth } from '../route-access.ts';
import type { AuthContext } from '../../auth/authenticate.ts';
import { ownKeysOnly } from '../../auth/roles.ts';
import type { Stores } from '../../store/store-contract.ts';

/** What generation-lookup-route.ts uses of the services (handed out by build-app.ts). */
export interface GenerationLookupRouteDeps {
  stores: Pick<Stores, 'accounts' | 'generations'>;
}

/** A caller whose role is `member` reads the records of their own keys only (docs/governance.md). */
async function mayRead(deps: GenerationLookupRouteDeps, auth: AuthContext, keyHash: string): Promise<boolean> {
  if (!ownKeysOnly(auth)) return true;
  const own = auth.member?.id;
  return own !== undefined && (await deps.stores.accounts.getKey(keyHash))?.memberId === own;
}

/** GET /api/v1/generation?id=: one generation record, to any key of the account that made it. */
export function registerGenerationLookupRoute(app: FastifyInstance, deps: GenerationLookupRouteDeps, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    app.get(`${prefix}/generation`, access('key'), async (request) => {
      const auth = requestAuth(request);
      const id = (request.query as { id?: string }).id;
      if (id === undefined || id === '')
        throw new GatewayError('missing_parameter', 'Missing required query parameter: "id".', { param: 'id' });
      const row = await deps.stores.generations.getRecord(id);
      if (row === undefined || row.accountId !== auth.account.id || !(await mayRead(deps, auth, row.keyHash))) {
        throw new GatewayError('not_found', `No generation "${id}" for this account.`);
      }
      return { data: generationView(row) };
    });
  }
}
