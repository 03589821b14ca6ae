import type { FastifyInstance } from 'fastify';
import { mintPlaygroundKey, PLAYGROUND_KEY_LIMIT_USD, PLAYGROUND_KEY_TTL_MS } from '../../billing/playground-keys.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { formatNanos } from '../../money/money.ts';
import { actorOf } from '../routes/admin/admin-common.ts';
import { access, requestAuth } from '../route-access.ts';
import { routeSchema } from '../routes/admin/route-schema.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { AccountService } from '../../billing/account-service.ts';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { CreditHolds } from '../../billing/credit-holds.ts';

/** What playground-key-route.ts uses of the services (handed out by build-app.ts). */
export interface PlaygroundKeyRouteDeps {
  stores: Pick<Stores, 'transaction'>;
  accountService: AccountService;
  auth: Authenticator;
  reservations: CreditHolds;
}

export const PLAYGROUND_KEY_PATH = '/api/v1/dashboard/playground-key';

/**
 * POST /api/v1/dashboard/playground-key: the playground's own API key, for a dashboard
 * session of a management key (billing/playground-keys.ts: marked as the playground's,
 * expiring within minutes, with a small limit). The page keeps it in memory and asks for
 * a new one when it has expired; the old ones are removed here, and no other key.
 */
export function registerPlaygroundKeyRoute(app: FastifyInstance, deps: PlaygroundKeyRouteDeps): void {
  app.post(
    PLAYGROUND_KEY_PATH,
    {
      ...access('session', { role: 'member', note: "a management key's (or a member's) dashboard session" }),
      schema: routeSchema({
        summary: `A short-lived API key of the playground's own (${PLAYGROUND_KEY_TTL_MS / 60_000} minutes, at most $${PLAYGROUND_KEY_LIMIT_USD}) for a dashboard session of a management key; X-CSRF-Token required`,
        tags: ['dashboard sessions'],
        status: 201,
        response: '{key, data: {hash, label, name, limit, expires_at}}',
        answers: 'PlaygroundKey',
      }),
    },
    async (request, reply) => {
      const auth = requestAuth(request);
      if (!auth.key.isManagement)
        throw new GatewayError('forbidden', "The playground's key is made for an account's dashboard session (a management key's).");
      const minted = await deps.stores.transaction(async (tx) => {
        const at = new Date();
        const out = await mintPlaygroundKey(deps.accountService, tx, auth.account.id, at);
        // A member's playground key is theirs (their usage, their role's reach).
        if (auth.member != null) await tx.members.setKeyMember(out.record.hash, auth.member.id);
        const actor = actorOf(auth);
        for (const k of out.removed) {
          await tx.audit.record(
            actor,
            'key.delete',
            k.hash,
            { account_id: k.accountId, label: k.label, name: k.name, playground: true },
            at.toISOString(),
          );
        }
        await tx.audit.record(
          actor,
          'key.create',
          out.record.hash,
          {
            account_id: auth.account.id,
            label: out.record.label,
            kind: 'api',
            playground: true,
            limit: PLAYGROUND_KEY_LIMIT_USD,
            expires_at: out.record.expiresAt,
          },
          at.toISOString(),
        );
        return out;
      });
      for (const k of minted.removed) {
        deps.auth.invalidate(k.hash);
        deps.reservations.forget(k.hash);
      }
      reply.code(201).header('cache-control', 'no-store');
      const r = minted.record;
      return {
        key: minted.key,
        data: {
          hash: r.hash,
          label: r.label,
          name: r.name,
          limit: r.limitNanos === null ? null : formatNanos(r.limitNanos),
          expires_at: r.expiresAt,
        },
      };
    },
  );
}
