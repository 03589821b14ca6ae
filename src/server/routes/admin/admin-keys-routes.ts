import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { isKeyLimitReset } from '../../../billing/key-limit-remaining.ts';
import type { KeyLimitReset } from '../../../store/account-records.ts';
import {
  actorOf,
  decodeCursor,
  isTimeIdCursor,
  objectBody,
  optionalString,
  page,
  pageSize,
  paramOf,
  queryOf,
  requireAdmin,
  stillThere,
  usdText,
} from './admin-common.ts';
import { findAccount } from './accounts-routes.ts';
import { adminKeyView } from './admin-views.ts';
import { ALLOWLIST_FIELDS, bodySchema, FIELD, MAX_IN_FLIGHT_FIELD, PAGE_QUERY, routeSchema } from './route-schema.ts';
import { allowlistView, applyAllowlist, readAllowlistChange, readMaxInFlight } from '../../../billing/allowlist-input.ts';
import { accessAudit } from '../keys-route.ts';
import { asBadRequest } from './service-errors.ts';
import { keyEvent } from '../../webhooks/webhook-events.ts';
import { access } from '../../route-access.ts';
import { noBodyIsEmpty, ROTATE_BODY, rotateKey, type KeyRotationDeps } from '../key-rotation.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { AccountService } from '../../../billing/account-service.ts';
import type { CreditHolds } from '../../../billing/credit-holds.ts';
import type { WebhookDispatcher } from '../../webhooks/webhook-dispatcher.ts';

/** What admin-keys-routes.ts uses of the services (handed out by build-app.ts). */
export type AdminKeysRoutesDeps = KeyRotationDeps & {
  stores: Pick<Stores, 'accounts' | 'transaction'>;
  accountService: AccountService;
  reservations: CreditHolds;
  webhooks: WebhookDispatcher;
};

const tags = ['admin: keys'];

/** Keys of any account: list, create (API or management keys; admin keys only from the CLI), disable/enable as the operator. */
export function registerAdminKeyRoutes(app: FastifyInstance, deps: AdminKeysRoutesDeps, prefix: string): void {
  app.get(
    `${prefix}/admin/keys`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'List keys (of one account, or all), in creation order',
        tags,
        query: { account: 'An account id.', ...PAGE_QUERY },
        response: '{data: [key], next_cursor}',
        answers: 'KeyPage',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const q = queryOf(request);
      const limit = pageSize(q);
      const account = q.account === undefined || q.account === '' ? undefined : (await findAccount(deps, q.account)).id;
      const keys = await deps.stores.accounts.keysPage(
        account === undefined ? {} : { accountId: account },
        decodeCursor(q, isTimeIdCursor),
        limit + 1,
      );
      const out = page(keys, limit, (k) => [k.createdAt, k.hash]);
      return { data: out.data.map(adminKeyView), next_cursor: out.next_cursor };
    },
  );

  app.post(
    `${prefix}/admin/accounts/:id/keys`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Create a key for an account (the key is in the answer, this once)',
        tags,
        params: { id: 'The account id.' },
        status: 201,
        response: '{data: key, key}',
        answers: 'AdminKeyCreated',
        body: bodySchema({
          name: FIELD.name,
          kind: { enum: ['api', 'management'], description: 'Default api; admin keys are made with the CLI.' },
          limit: FIELD.usdOrNull('USD decimal text, 0 to 1,000,000,000; null: none'),
          limit_reset: FIELD.limitReset,
          expires_at: FIELD.expiresAt,
          ...ALLOWLIST_FIELDS,
          max_in_flight: MAX_IN_FLIGHT_FIELD,
        }),
      }),
    },
    async (request, reply) => {
      const auth = await requireAdmin(request);
      const account = await findAccount(deps, paramOf(request, 'id'));
      const body = objectBody(request.body);
      const kind = body.kind ?? 'api';
      if (kind !== 'api' && kind !== 'management') {
        throw new GatewayError('invalid_parameter', '"kind" must be "api" or "management" (admin keys are created with the CLI).', {
          param: 'kind',
        });
      }
      const limit = usdText(body, 'limit') ?? null;
      const limitReset = readLimitReset(body.limit_reset) ?? null;
      const expiresAt = optionalString(body, 'expires_at') ?? null;
      const allowlist = applyAllowlist(null, readAllowlistChange(body));
      const maxInFlight = body.max_in_flight === undefined ? null : readMaxInFlight(body.max_in_flight);
      const created = await deps.stores.transaction(async (tx) => {
        const out = await asBadRequest(() =>
          deps.accountService.within(tx).createKey({
            accountId: account.id,
            name: optionalString(body, 'name') ?? 'default',
            limitUsd: limit,
            limitReset,
            expiresAt,
            management: kind === 'management',
            allowlist,
            maxInFlight,
          }),
        );
        await tx.audit.record(
          actorOf(auth),
          'key.create',
          out.record.hash,
          {
            account_id: account.id,
            label: out.record.label,
            kind,
            limit,
            limit_reset: limitReset,
            expires_at: expiresAt,
            // Only what was set: a key made without them is audited as before.
            ...(allowlist === null ? {} : allowlistView(allowlist)),
            ...(maxInFlight === null ? {} : { max_in_flight: maxInFlight }),
          },
          new Date().toISOString(),
        );
        return out;
      });
      await deps.webhooks.emit(account.id, 'key.created', keyEvent(created.record, 'operator'));
      reply.code(201);
      return { data: adminKeyView(created.record), key: created.key };
    },
  );

  app.patch(
    `${prefix}/admin/keys/:hash`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary:
          "Disable a key (the operator's revocation, final for its account) or enable it again; change its limit and the limit's reset period, what it may reach and its cap on concurrent requests",
        tags,
        params: { hash: 'The key hash.' },
        response: '{data: key}',
        answers: 'KeyAnswer',
        body: bodySchema(
          {
            disabled: { type: 'boolean' },
            limit: FIELD.usdOrNull('USD decimal text, 0 to 1,000,000,000; null: no limit'),
            limit_reset: FIELD.limitReset,
            ...ALLOWLIST_FIELDS,
            max_in_flight: MAX_IN_FLIGHT_FIELD,
          },
          { atLeastOne: true },
        ),
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const hash = paramOf(request, 'hash');
      const key = await deps.stores.accounts.getKey(hash);
      if (key === undefined) throw new GatewayError('not_found', `No key with hash "${hash}".`);
      const body = objectBody(request.body);
      const limitChange = readLimitChange(body);
      const allowlistChange = readAllowlistChange(body);
      const maxInFlight = 'max_in_flight' in body ? readMaxInFlight(body.max_in_flight) : undefined;
      const accessChange = allowlistChange !== null || maxInFlight !== undefined;
      if (body.disabled === undefined && limitChange === null && !accessChange) {
        throw new GatewayError(
          'missing_parameter',
          'Give "disabled", "limit", "limit_reset", "allowed_models", "allowed_providers", "max_price" or "max_in_flight".',
          { param: 'disabled' },
        );
      }
      if (body.disabled !== undefined && typeof body.disabled !== 'boolean')
        throw new GatewayError('invalid_parameter', '"disabled" must be a boolean.', { param: 'disabled' });
      if (body.disabled === true && key.hash === auth.key.hash)
        throw new GatewayError('invalid_parameter', 'An admin key cannot disable itself.', { param: 'disabled' });
      const disabled = body.disabled;
      const updated = await deps.stores.transaction(async (tx) => {
        const service = deps.accountService.within(tx);
        let out = key;
        const at = new Date().toISOString();
        if (limitChange !== null) {
          out = stillThere(await asBadRequest(() => service.updateKeyLimit(key.hash, limitChange)), `The key ${key.label}`);
          await tx.audit.record(
            actorOf(auth),
            'key.limit',
            key.hash,
            {
              account_id: key.accountId,
              label: key.label,
              limit: limitChange.limitUsd ?? null,
              limit_reset: out.limitReset,
            },
            at,
          );
        }
        if (accessChange) {
          out = stillThere(
            await service.updateKeyAccess(key.hash, { allowlist: allowlistChange, ...(maxInFlight === undefined ? {} : { maxInFlight }) }),
            `The key ${key.label}`,
          );
          await tx.audit.record(actorOf(auth), 'key.access', key.hash, accessAudit(out, {}), at);
        }
        if (disabled !== undefined) {
          out = stillThere(disabled ? await service.revokeKey(key.hash) : await service.enableKey(key.hash), `The key ${key.label}`);
          await tx.audit.record(
            actorOf(auth),
            disabled ? 'key.disable' : 'key.enable',
            key.hash,
            { account_id: key.accountId, label: key.label },
            at,
          );
        }
        return out;
      });
      deps.reservations.forget(key.hash);
      if (disabled === true && key.isActive)
        await deps.webhooks.emit(key.accountId, 'key.revoked', { ...keyEvent(key, 'operator'), reason: 'disabled' });
      return { data: adminKeyView(updated) };
    },
  );

  app.post(
    `${prefix}/admin/keys/:hash/rotate`,
    {
      ...access('admin'),
      preValidation: noBodyIsEmpty,
      schema: routeSchema({
        summary:
          'Rotate a key: a new secret for the same key record (the key is in the answer, this once); the old one works `overlap_seconds` more',
        tags,
        params: { hash: 'The key hash.' },
        response: '{data: key, key, previous_key_expires_at}',
        answers: 'AdminKeyRotated',
        body: ROTATE_BODY,
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const hash = paramOf(request, 'hash');
      const key = await deps.stores.accounts.getKey(hash);
      if (key === undefined) throw new GatewayError('not_found', `No key with hash "${hash}".`);
      const rotated = await rotateKey(deps, auth, key, request.body, 'operator');
      return { data: adminKeyView(rotated.record), key: rotated.key, previous_key_expires_at: rotated.previousUntil };
    },
  );
}

function readLimitReset(v: unknown): KeyLimitReset | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (!isKeyLimitReset(v))
    throw new GatewayError('invalid_parameter', '"limit_reset" must be "daily", "weekly", "monthly" or null.', { param: 'limit_reset' });
  return v;
}

/** The limit fields of a PATCH body (null when it has neither). */
function readLimitChange(body: Record<string, unknown>): { limitUsd?: string | null; limitReset?: KeyLimitReset | null } | null {
  const out: { limitUsd?: string | null; limitReset?: KeyLimitReset | null } = {};
  if ('limit' in body) {
    const v = body.limit;
    if (v !== null && typeof v !== 'string' && typeof v !== 'number')
      throw new GatewayError('invalid_parameter', '"limit" must be a USD amount or null.', { param: 'limit' });
    out.limitUsd = v === null ? null : String(v);
  }
  const reset = readLimitReset(body.limit_reset);
  if (reset !== undefined) out.limitReset = reset;
  return Object.keys(out).length === 0 ? null : out;
}
