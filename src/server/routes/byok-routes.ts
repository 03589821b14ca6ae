import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import type { ProviderConfig } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Stores } from '../../store/store-contract.ts';
import { access, requestAuth } from '../route-access.ts';
import { actorOf, objectBody, paramOf } from './admin/admin-common.ts';
import { findAccount, type FindAccountDeps } from './admin/accounts-routes.ts';
import { bodySchema, routeSchema } from './admin/route-schema.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { ByokKeys, ByokInput, ByokView } from '../../auth/byok-keys.ts';

/** What byok-routes.ts uses of the services (handed out by build-app.ts). */
export type ByokRoutesDeps = FindAccountDeps & {
  inForce: Pick<InForce, 'catalog'>;
  byok: ByokKeys;
};

// Bring your own key (docs/byok.md): an account's own key for a provider, stored sealed
// after a check at the provider, listed by label and last four characters, removed. A
// management key (or its dashboard session) manages its own account's keys under /byok; an
// admin key any account's under /admin/accounts/{id}/byok. The key never comes back.

const MAX_KEY_CHARS = 16_384;
const MAX_LABEL_CHARS = 100;

const keyBody = bodySchema(
  {
    key: {
      type: ['string', 'object'],
      minLength: 1,
      maxLength: MAX_KEY_CHARS,
      description:
        "The provider's key: an API key; for Bedrock an API key or {access_key_id, secret_access_key, session_token?}; for Vertex the service account's JSON key (object or text).",
    },
    mode: {
      enum: ['prefer', 'only'],
      description: '"prefer": this key first, the operator\'s credentials as fallback; "only": never the operator\'s.',
    },
    label: { type: ['string', 'null'], maxLength: MAX_LABEL_CHARS, description: 'A name for the key (shown in lists).' },
  },
  { required: ['key', 'mode'] },
);

const providerParam = { provider: 'A provider id of the gateway (GET /providers lists them).' };

function schemas(tags: string[], who: string, params: Record<string, string> = {}) {
  return {
    list: routeSchema({
      summary: `The account's own provider keys, never the keys (${who})`,
      tags,
      params,
      response: '{data: [byok key]}',
      answers: 'ByokKeyList',
    }),
    put: routeSchema({
      summary: `Store the account's own key for a provider, checked at the provider first (${who})`,
      tags,
      params: { ...params, ...providerParam },
      body: keyBody,
      response: '{data: byok key}',
      answers: 'ByokKeyAnswer',
    }),
    remove: routeSchema({
      summary: `Remove the account's own key for a provider (${who})`,
      tags,
      params: { ...params, ...providerParam },
      response: '{deleted: true, provider}',
      answers: 'ByokKeyDeleted',
    }),
  };
}

export function registerByokRoutes(app: FastifyInstance, deps: ByokRoutesDeps, prefixes: readonly string[]): void {
  const managed = access('management', {
    role: 'admin',
    denied: 'Bring-your-own-key is managed with a management key of the account (or its dashboard session).',
  }).config;
  const own = schemas(['byok'], 'management key');
  const admin = schemas(['admin: byok'], 'admin key', { id: 'The account id.' });

  for (const prefix of prefixes) {
    app.get(`${prefix}/byok`, { config: managed, schema: own.list }, async (request) => {
      const auth = requestAuth(request);
      return { data: await deps.byok.list(auth.account.id) };
    });
    app.put(`${prefix}/byok/:provider`, { config: managed, schema: own.put }, async (request) => {
      const auth = requestAuth(request);
      return { data: await store(deps, auth, auth.account.id, request) };
    });
    app.delete(`${prefix}/byok/:provider`, { config: managed, schema: own.remove }, async (request) => {
      const auth = requestAuth(request);
      return remove(deps, auth, auth.account.id, request);
    });

    app.get(`${prefix}/admin/accounts/:id/byok`, { ...access('admin'), schema: admin.list }, async (request) => {
      const account = await findAccount(deps, paramOf(request, 'id'));
      return { data: await deps.byok.list(account.id) };
    });
    app.put(`${prefix}/admin/accounts/:id/byok/:provider`, { ...access('admin'), schema: admin.put }, async (request) => {
      const auth = requestAuth(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      return { data: await store(deps, auth, account.id, request) };
    });
    app.delete(`${prefix}/admin/accounts/:id/byok/:provider`, { ...access('admin'), schema: admin.remove }, async (request) => {
      const auth = requestAuth(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      return remove(deps, auth, account.id, request);
    });
  }
}

async function store(deps: ByokRoutesDeps, auth: AuthContext, accountId: string, request: FastifyRequest): Promise<ByokView> {
  deps.byok.assertEnabled(); // the 503 naming byok.master_key, before anything else is read
  const provider = providerOf(deps, paramOf(request, 'provider'));
  const input = inputOf(objectBody(request.body));
  return deps.byok.set(accountId, provider, input, async (tx: Stores, view) => {
    // The audit names the provider, mode, label and last four: never the key.
    await tx.audit.record(
      actorOf(auth),
      'byok.set',
      accountId,
      { provider: view.provider, mode: view.mode, label: view.label, last_four: view.last_four },
      new Date().toISOString(),
    );
  });
}

async function remove(
  deps: ByokRoutesDeps,
  auth: AuthContext,
  accountId: string,
  request: FastifyRequest,
): Promise<{ deleted: true; provider: string }> {
  const provider = paramOf(request, 'provider');
  const removed = await deps.byok.remove(accountId, provider, async (tx) => {
    await tx.audit.record(actorOf(auth), 'byok.remove', accountId, { provider }, new Date().toISOString());
  });
  if (!removed) throw new GatewayError('not_found', `The account has no key of its own for provider "${provider}".`);
  return { deleted: true, provider };
}

function providerOf(deps: ByokRoutesDeps, id: string): ProviderConfig {
  const provider = deps.inForce.catalog.providers.get(id);
  if (provider === undefined || provider.kind === 'sim') {
    const known = [...deps.inForce.catalog.providers.values()].filter((p) => p.kind !== 'sim').map((p) => p.id);
    throw new GatewayError(
      'not_found',
      `No provider "${id}" takes an account's own key on this gateway${known.length === 0 ? '' : ` (providers: ${known.join(', ')})`}.`,
    );
  }
  return provider;
}

function inputOf(body: Record<string, unknown>): ByokInput {
  const raw = body.key;
  const key =
    typeof raw === 'string' ? raw : raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? JSON.stringify(raw) : undefined;
  if (key === undefined || key.trim() === '')
    throw new GatewayError('missing_parameter', 'Missing required parameter: "key" (the provider\'s key).', { param: 'key' });
  if (key.length > MAX_KEY_CHARS)
    throw new GatewayError('invalid_parameter', `"key" is longer than ${MAX_KEY_CHARS} characters.`, { param: 'key' });
  const mode = body.mode;
  if (mode !== 'prefer' && mode !== 'only')
    throw new GatewayError('invalid_parameter', '"mode" must be "prefer" or "only".', { param: 'mode' });
  const label = body.label;
  if (label !== undefined && label !== null && typeof label !== 'string')
    throw new GatewayError('invalid_parameter', '"label" must be a string.', { param: 'label' });
  return { key, mode, label: typeof label === 'string' && label.trim() !== '' ? label.trim() : null };
}
