import type { FastifyInstance } from 'fastify';
import {
  actorOf,
  defaultModelOf,
  objectBody,
  optionalName,
  optionalString,
  requireManager,
  stillThere,
  type AdminCommonDeps,
} from './admin-common.ts';
import { accountView } from './admin-views.ts';
import { bodySchema, FIELD, routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { AccountService } from '../../../billing/account-service.ts';

/** What account-settings-routes.ts uses of the services (handed out by build-app.ts). */
export type AccountSettingsRoutesDeps = AdminCommonDeps & {
  stores: Pick<Stores, 'accounts' | 'transaction'>;
  accountService: AccountService;
};

/**
 * GET/PATCH /account: the caller's own account (management key) — its name and default
 * model (a model of the catalog; the dashboard's Settings page). Tier, credits and the
 * active flag stay the operator's (/admin/accounts).
 */
export function registerAccountSettingsRoutes(app: FastifyInstance, deps: AccountSettingsRoutesDeps, prefix: string): void {
  const tags = ['account reports'];
  app.get(
    `${prefix}/account`,
    {
      ...access('management', { role: 'viewer' }),
      schema: routeSchema({
        summary: "The caller's account (management key)",
        tags,
        response: '{data: account}',
        answers: 'AccountAnswer',
      }),
    },
    async (request) => {
      const auth = await requireManager(request);
      return { data: accountView(stillThere(await deps.stores.accounts.getAccount(auth.account.id), 'The account')) };
    },
  );

  app.patch(
    `${prefix}/account`,
    {
      ...access('management', { role: 'admin' }),
      schema: routeSchema({
        summary: "Rename the caller's account or set its default model (management key)",
        tags,
        response: '{data: account}',
        answers: 'AccountAnswer',
        body: bodySchema(
          {
            name: FIELD.name,
            default_model: {
              type: 'string',
              minLength: 1,
              maxLength: 256,
              description: 'A model the catalog serves (an id, alias or bare name; stored as its id).',
            },
          },
          { atLeastOne: true },
        ),
      }),
    },
    async (request) => {
      const auth = await requireManager(request);
      const body = objectBody(request.body);
      const name = optionalName(body);
      const model = optionalString(body, 'default_model');
      const defaultModel = model === undefined ? undefined : defaultModelOf(deps, model);
      const updated = await deps.stores.transaction(async (tx) => {
        if (name !== undefined) await tx.admin.rename(auth.account.id, name);
        const out = await deps.accountService.within(tx).updateAccount(auth.account.id, defaultModel === undefined ? {} : { defaultModel });
        await tx.audit.record(
          actorOf(auth),
          'account.update',
          auth.account.id,
          {
            ...(name === undefined ? {} : { name }),
            ...(defaultModel === undefined ? {} : { default_model: defaultModel }),
          },
          new Date().toISOString(),
        );
        return out;
      });
      return { data: accountView(updated) };
    },
  );
}
