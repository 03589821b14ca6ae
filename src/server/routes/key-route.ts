import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import { limitRemaining } from '../../billing/key-limit-remaining.ts';
import { nanosToNumber } from '../../money/money.ts';
import { effectiveLimits, type TierTable } from '../../config/tier-limits.ts';
import { readAnyApiKey } from '../request-helpers.ts';
import { access, requestAuth } from '../route-access.ts';
import type { Stores } from '../../store/store-contract.ts';

/** What key-route.ts uses of the services (handed out by build-app.ts). */
export interface KeyRouteDeps {
  stores: Pick<Stores, 'accounts' | 'generations' | 'keyUsage'>;
  tiers: TierTable;
  now: () => number;
}

const DAY_MS = 86_400_000;

/** GET /v1/key[?details=true]: the key status record of the spec; the key as a bearer token or `x-api-key`. */
export function registerKeyRoute(app: FastifyInstance, deps: KeyRouteDeps, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    app.get(`${prefix}/key`, access('key', { readKey: readAnyApiKey, keyHeaders: 'bearer-or-x-api-key' }), async (request) => {
      const auth = requestAuth(request);
      const details = (request.query as Record<string, string | undefined>).details === 'true';
      return { data: await keyStatus(deps, auth, details) };
    });
  }
}

async function keyStatus(deps: KeyRouteDeps, auth: AuthContext, details: boolean): Promise<Record<string, unknown>> {
  // Fresh from the database: the cached auth records may lag behind the ledger.
  const key = (await deps.stores.accounts.getKey(auth.key.hash)) ?? auth.key;
  const account = (await deps.stores.accounts.getAccount(auth.account.id)) ?? auth.account;
  const isOrg = account.accountType === 'organization';
  const tier = deps.tiers.get(account.tier);
  const limits = tier === undefined ? null : effectiveLimits(tier, account.limitsOverride);
  const usage = nanosToNumber(key.usageNanos);
  const limit = key.limitNanos === null ? null : nanosToNumber(key.limitNanos);
  const data: Record<string, unknown> = {
    label: key.label,
    name: key.name,
    usage,
    limit,
    limit_remaining: await limitRemaining(key, deps.now(), (a, h, days) => deps.stores.keyUsage.costOnDays(a, h, days)),
    limit_reset: key.limitReset,
    is_free_tier: account.tier === 'free',
    tier: account.tier,
    tier_name: tier?.name ?? account.tier,
    rate_limit: limits === null ? null : { requests: limits.requestsPerMinute, interval: '1m' },
    is_management_key: key.isManagement,
    is_active: key.isActive,
    is_org_key: isOrg,
    created_at: key.createdAt,
    last_used: key.lastUsed,
  };
  if (isOrg) {
    data.org_id = account.id;
    data.org_name = account.name;
  }
  if (details) {
    const now = Date.now();
    const week = await deps.stores.generations.keyUsageSince(key.hash, new Date(now - 7 * DAY_MS).toISOString());
    const month = await deps.stores.generations.keyUsageSince(key.hash, new Date(now - 30 * DAY_MS).toISOString());
    data.balance = nanosToNumber(account.balanceNanos);
    data.account_type = account.accountType;
    data.usage_stats = {
      last_7_days: { cost: nanosToNumber(week.costNanos), requests: week.requests },
      last_30_days: { cost: nanosToNumber(month.costNanos), requests: month.requests },
    };
  }
  return data;
}
