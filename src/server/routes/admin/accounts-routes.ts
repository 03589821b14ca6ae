import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { LimitsOverride } from '../../../config/tier-limits.ts';
import type { AccountPatch, AccountRecord } from '../../../store/account-records.ts';
import { readBudget } from '../../../billing/budgets.ts';
import { MAX_RETENTION_DAYS } from '../../../config/parse-records.ts';
import {
  actorOf,
  decodeCursor,
  defaultModelOf,
  isTimeIdCursor,
  objectBody,
  optionalName,
  optionalString,
  page,
  pageSize,
  paramOf,
  queryOf,
  requireAdmin,
  requiredString,
  usdText,
} from './admin-common.ts';
import { accountView } from './admin-views.ts';
import { asBadRequest } from './service-errors.ts';
import { ALLOWLIST_FIELDS, bodySchema, FIELD, GUARDRAILS_FIELD, PAGE_QUERY, routeSchema } from './route-schema.ts';
import { readGuardrails } from '../../../billing/guardrail-input.ts';
import { allowlistView, applyAllowlist, readAllowlistChange } from '../../../billing/allowlist-input.ts';
import { access } from '../../route-access.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { AccountService } from '../../../billing/account-service.ts';
import type { AdminCommonDeps } from './admin-common.ts';

/** What findAccount reads. */
export interface FindAccountDeps {
  stores: Pick<Stores, 'accounts'>;
}

/** What accounts-routes.ts uses of the services (handed out by build-app.ts). */
export type AccountsRoutesDeps = AdminCommonDeps & {
  stores: Pick<Stores, 'accounts' | 'admin' | 'transaction'>;
  accountService: AccountService;
};

const tags = ['admin: accounts'];
const accountParams = { id: 'The account id (acct_...).' };
const TIER = { type: 'string', minLength: 1, maxLength: 256 };
const MODEL = {
  type: 'string',
  minLength: 1,
  maxLength: 256,
  description: 'A model the catalog serves (an id, alias or bare name; stored as its id).',
};

/** /admin/accounts: list (search, keyset pages), create, show, update (name, tier, default model, limits, active). */
export function registerAdminAccountRoutes(app: FastifyInstance, deps: AccountsRoutesDeps, prefix: string): void {
  const { stores } = deps;
  const base = `${prefix}/admin/accounts`;

  app.get(
    base,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'List accounts',
        tags,
        query: { search: 'Matches the id, or part of the name (any case).', ...PAGE_QUERY },
        response: '{data: [account], next_cursor}',
        answers: 'AccountPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const limit = pageSize(q);
      const after = decodeCursor(q, isTimeIdCursor);
      const search = q.search === undefined || q.search === '' ? null : q.search;
      const ids = await stores.admin.accountIds(search, after === null ? null : { createdAt: after[0], id: after[1] }, limit + 1);
      const accounts = (await Promise.all(ids.map((r) => deps.stores.accounts.getAccount(r.id)))).filter(
        (a): a is AccountRecord => a !== undefined,
      );
      const out = page(accounts, limit, (a) => [a.createdAt, a.id]);
      return { data: out.data.map(accountView), next_cursor: out.next_cursor };
    },
  );

  app.post(
    base,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Create an account',
        tags,
        status: 201,
        response: '{data: account}',
        answers: 'AccountAnswer',
        body: bodySchema(
          {
            name: FIELD.name,
            type: { enum: ['user', 'organization'], description: 'Default user.' },
            tier: { ...TIER, description: 'A configured tier (default free).' },
            default_model: { ...MODEL, type: ['string', 'null'] },
            credits: FIELD.usd('Initial credits, USD decimal text (at most 1,000,000,000).'),
            ...ALLOWLIST_FIELDS,
          },
          { required: ['name'] },
        ),
      }),
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      const body = objectBody(request.body);
      const type = body.type ?? 'user';
      if (type !== 'user' && type !== 'organization')
        throw new GatewayError('invalid_parameter', '"type" must be "user" or "organization".', { param: 'type' });
      const credits = usdText(body, 'credits');
      const model = body.default_model === null ? undefined : optionalString(body, 'default_model');
      const allowlist = applyAllowlist(null, readAllowlistChange(body));
      const account = await deps.stores.transaction(async (tx) => {
        const service = deps.accountService.within(tx);
        let created = await asBadRequest(() =>
          service.createAccount({
            name: requiredString(body, 'name'),
            type,
            tier: optionalString(body, 'tier'),
            defaultModel: model === undefined ? null : defaultModelOf(deps, model),
            ...(credits === undefined ? {} : { creditsUsd: credits }),
          }),
        );
        if (allowlist !== null) created = await service.updateAccount(created.id, { allowlist });
        await tx.audit.record(
          actorOf(auth),
          'account.create',
          created.id,
          {
            name: created.name,
            type,
            tier: created.tier,
            credits: credits ?? '0',
            ...(allowlist === null ? {} : allowlistView(allowlist)),
          },
          new Date().toISOString(),
        );
        return created;
      });
      reply.code(201);
      return { data: accountView(account) };
    },
  );

  app.get(
    `${base}/:id`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Show an account',
        tags,
        params: accountParams,
        response: '{data: account}',
        answers: 'AccountAnswer',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      return { data: accountView(await findAccount(deps, paramOf(request, 'id'))) };
    },
  );

  app.patch(
    `${base}/:id`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Update an account (name, tier, default model, limits, budget; is_active false deactivates, true reactivates)',
        tags,
        params: accountParams,
        response: '{data: account}',
        answers: 'AccountAnswer',
        body: bodySchema(
          {
            name: FIELD.name,
            tier: { ...TIER, description: 'A configured tier.' },
            default_model: MODEL,
            is_active: { type: 'boolean', description: 'false deactivates, true reactivates.' },
            limits: {
              type: ['object', 'null'],
              description: 'Rate-limit override; null clears it.',
              additionalProperties: false,
              properties: {
                requests_per_minute: { type: 'integer', minimum: 1, description: 'Per key.' },
                requests_per_day: { type: ['integer', 'null'], minimum: 1, description: 'Per key; null: no daily cap.' },
                account_requests_per_minute: { type: ['integer', 'null'], minimum: 1, description: 'The whole account; null: none.' },
              },
            },
            budget: {
              type: ['object', 'null'],
              additionalProperties: false,
              required: ['amount'],
              description:
                'What the account may spend per window, refused beyond it (402 insufficient_quota, reason budget); null clears it.',
              properties: {
                amount: FIELD.usd('USD decimal text, 0 to 1,000,000,000.'),
                reset: {
                  enum: ['daily', 'weekly', 'monthly', null],
                  description: 'The budget caps the spend of each UTC day, week (from Monday) or month; null: the whole usage.',
                },
                alert_thresholds: {
                  type: ['array', 'null'],
                  minItems: 1,
                  maxItems: 10,
                  items: { type: 'integer', minimum: 1, maximum: 100 },
                  description: 'Percentages at which budget.threshold fires; null: alerts.thresholds (default 50, 80, 100).',
                },
              },
            },
            retention_days: {
              type: ['integer', 'null'],
              minimum: 1,
              maximum: MAX_RETENTION_DAYS,
              description:
                "Days the account's generation records are kept (then pruned; usage rollups stay); null: its tier's, else records.retention_days.",
            },
            ...ALLOWLIST_FIELDS,
            guardrails: GUARDRAILS_FIELD,
          },
          { atLeastOne: true },
        ),
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      const body = objectBody(request.body);
      const name = optionalName(body);
      const patch: AccountPatch = {};
      const tier = optionalString(body, 'tier');
      if (tier !== undefined) patch.tier = tier;
      const defaultModel = optionalString(body, 'default_model');
      if (defaultModel !== undefined) patch.defaultModel = defaultModelOf(deps, defaultModel);
      if (body.is_active !== undefined) {
        if (typeof body.is_active !== 'boolean')
          throw new GatewayError('invalid_parameter', '"is_active" must be a boolean.', { param: 'is_active' });
        patch.isActive = body.is_active;
        if (!body.is_active && account.id === auth.account.id) {
          throw new GatewayError(
            'invalid_parameter',
            'An admin key cannot deactivate its own account (it would lock itself out); use the CLI.',
            { param: 'is_active' },
          );
        }
      }
      if ('limits' in body) patch.limitsOverride = readLimits(body.limits);
      if ('retention_days' in body) patch.retentionDays = readRetention(body.retention_days);
      const allowlistChange = readAllowlistChange(body);
      if (allowlistChange !== null) patch.allowlist = applyAllowlist(account.allowlist, allowlistChange);
      if ('guardrails' in body) patch.guardrails = readGuardrails(body.guardrails);
      if ('budget' in body) patch.budget = readBudget(body.budget);
      const updated = await deps.stores.transaction(async (tx) => {
        if (name !== undefined) await tx.admin.rename(account.id, name);
        const out = await asBadRequest(() => deps.accountService.within(tx).updateAccount(account.id, patch));
        const action =
          patch.isActive === false
            ? 'account.deactivate'
            : patch.isActive === true && !account.isActive
              ? 'account.reactivate'
              : 'account.update';
        await tx.audit.record(
          actorOf(auth),
          action,
          account.id,
          { ...(name === undefined ? {} : { name }), ...changes(body) },
          new Date().toISOString(),
        );
        return out;
      });
      return { data: accountView(updated) };
    },
  );
}

export async function findAccount(deps: FindAccountDeps, id: string): Promise<AccountRecord> {
  const account = await deps.stores.accounts.getAccount(id);
  if (account === undefined) throw new GatewayError('not_found', `No account "${id}".`);
  return account;
}

function changes(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of [
    'tier',
    'default_model',
    'is_active',
    'limits',
    'retention_days',
    'allowed_models',
    'allowed_providers',
    'max_price',
    'guardrails',
    'budget',
  ])
    if (k in body) out[k] = body[k];
  return out;
}

function readRetention(v: unknown): number | null {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_RETENTION_DAYS) return v;
  throw new GatewayError('invalid_parameter', `"retention_days" must be an integer from 1 to ${MAX_RETENTION_DAYS}, or null.`, {
    param: 'retention_days',
  });
}

const LIMIT_FIELDS = ['requests_per_minute', 'requests_per_day', 'account_requests_per_minute'] as const;

function readLimits(v: unknown): LimitsOverride | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new GatewayError('invalid_parameter', '"limits" must be an object or null.', { param: 'limits' });
  const out: Record<string, number | null> = {};
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) {
    if (!(LIMIT_FIELDS as readonly string[]).includes(k))
      throw new GatewayError('invalid_parameter', `"limits.${k}" is not a limit (known: ${LIMIT_FIELDS.join(', ')}).`, {
        param: `limits.${k}`,
      });
    const nullable = k !== 'requests_per_minute';
    if ((value === null && nullable) || (typeof value === 'number' && Number.isInteger(value) && value > 0)) out[k] = value;
    else
      throw new GatewayError('invalid_parameter', `"limits.${k}" must be a positive integer${nullable ? ' or null' : ''}.`, {
        param: `limits.${k}`,
      });
  }
  return out;
}
