import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import {
  actorOf,
  decodeCursor,
  isIdCursor,
  money,
  objectBody,
  page,
  pageSize,
  paramOf,
  queryOf,
  requireAdmin,
  requireManager,
  requiredString,
  stillThere,
} from './admin-common.ts';
import { findAccount, type FindAccountDeps } from './accounts-routes.ts';
import { ledgerView } from './admin-views.ts';
import { bodySchema, FIELD, PAGE_QUERY, routeSchema } from './route-schema.ts';
import { asBadRequest } from './service-errors.ts';
import { access } from '../../route-access.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { AccountService } from '../../../billing/account-service.ts';

/** What credits-routes.ts uses of the services (handed out by build-app.ts). */
export type CreditsRoutesDeps = FindAccountDeps & {
  stores: Pick<Stores, 'admin' | 'transaction'>;
  accountService: AccountService;
};

const tags = ['admin: credits'];
/** Characters of a grant's or an adjustment's reason. */
const MAX_REASON_CHARS = 1000;

/**
 * POST /admin/accounts/:id/credits (a grant or an adjustment, with a reason), GET
 * /admin/accounts/:id/ledger, and GET /ledger: the caller's own account (management key).
 */
export function registerCreditsRoutes(app: FastifyInstance, deps: CreditsRoutesDeps, prefix: string): void {
  const { stores } = deps;
  app.post(
    `${prefix}/admin/accounts/:id/credits`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Grant credits (kind "grant", positive) or adjust a balance either way (kind "adjustment"), with a reason',
        tags,
        params: { id: 'The account id.' },
        status: 201,
        response: '{data: {account_id, balance, balance_usd, entry}}',
        answers: 'CreditsChanged',
        body: bodySchema(
          {
            kind: { enum: ['grant', 'adjustment'] },
            amount: FIELD.usd(
              'USD decimal text, e.g. "12.50" or "-3"; at most 1,000,000,000 either way, and the balance stays within ±2,000,000,000',
            ),
            reason: {
              type: 'string',
              minLength: 1,
              maxLength: MAX_REASON_CHARS,
              description: 'Kept on the ledger row and in the audit log.',
            },
          },
          { required: ['kind', 'amount', 'reason'] },
        ),
      }),
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      const body = objectBody(request.body);
      const kind = body.kind;
      if (kind !== 'grant' && kind !== 'adjustment')
        throw new GatewayError('invalid_parameter', '"kind" must be "grant" or "adjustment".', { param: 'kind' });
      if (typeof body.amount !== 'string' && typeof body.amount !== 'number')
        throw new GatewayError('missing_parameter', 'Missing required parameter: "amount" (USD decimal text).', { param: 'amount' });
      const amount = String(body.amount);
      const reason = requiredString(body, 'reason');
      const { balance, entry } = await deps.stores.transaction(async (tx) => {
        const service = deps.accountService.within(tx);
        const out = await asBadRequest(() =>
          kind === 'grant' ? service.addCredits(account.id, amount, reason) : service.adjustCredits(account.id, amount, reason),
        );
        await tx.audit.record(
          actorOf(auth),
          kind === 'grant' ? 'credits.grant' : 'credits.adjust',
          account.id,
          { amount, reason },
          new Date().toISOString(),
        );
        // The entry just written: read in the transaction, so no settlement can come between.
        return { balance: out, entry: stillThere((await tx.admin.ledger(account.id, null, 1))[0], 'The ledger entry just written') };
      });
      reply.code(201);
      return { data: { account_id: account.id, ...money('balance', balance), entry: ledgerView(entry) } };
    },
  );

  app.get(
    `${prefix}/admin/accounts/:id/ledger`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: "An account's ledger, newest first",
        tags,
        params: { id: 'The account id.' },
        query: PAGE_QUERY,
        response: '{data: [ledger entry], next_cursor}',
        answers: 'LedgerPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      return ledgerPage(stores, account.id, queryOf(request));
    },
  );

  app.get(
    `${prefix}/ledger`,
    {
      ...access('management', { role: 'owner' }),
      schema: routeSchema({
        summary: "The caller's account ledger, newest first (management key)",
        tags: ['account reports'],
        query: PAGE_QUERY,
        response: '{data: [ledger entry], next_cursor}',
        answers: 'LedgerPage',
      }),
    },
    async (request) => {
      const auth = await requireManager(request);
      return ledgerPage(stores, auth.account.id, queryOf(request));
    },
  );
}

async function ledgerPage(stores: CreditsRoutesDeps['stores'], accountId: string, q: Record<string, string | undefined>): Promise<unknown> {
  const limit = pageSize(q);
  const before = decodeCursor(q, isIdCursor);
  const entries = await stores.admin.ledger(accountId, before, limit + 1);
  const out = page(entries, limit, (e) => e.id);
  return { data: out.data.map(ledgerView), next_cursor: out.next_cursor };
}
