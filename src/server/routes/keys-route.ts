import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatNanos, nanosToNumber, usdToNanos } from '../../money/money.ts';
import { MAX_AMOUNT_NANOS, MAX_AMOUNT_USD } from '../../money/amount-bounds.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { isKeyLimitReset, limitRemaining } from '../../billing/key-limit-remaining.ts';
import { access, requestAuth } from '../route-access.ts';
import { checkName } from '../../billing/account-input.ts';
import { ALLOWLIST_FIELDS, bodySchema, FIELD, MAX_IN_FLIGHT_FIELD, routeSchema } from './admin/route-schema.ts';
import { allowlistView, applyAllowlist, readAllowlistChange, readMaxInFlight } from '../../billing/allowlist-input.ts';
import type { Allowlist } from '../../catalog/model-access.ts';
import { actorOf, decodeCursor, encodeCursor, isTimeIdCursor, stillThere } from './admin/admin-common.ts';
import { keyStatus } from './admin/admin-views.ts';
import type { KeyLimitReset, KeyPatch, KeyRecord } from '../../store/account-records.ts';
import { keyEvent } from '../webhooks/webhook-events.ts';
import { ownKeysOnly } from '../../auth/roles.ts';
import { accountMemberFilter } from './admin/member-filter.ts';
import { noBodyIsEmpty, ROTATE_BODY, rotateKey } from './key-rotation.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { AccountService } from '../../billing/account-service.ts';
import type { Authenticator, AuthContext } from '../../auth/authenticate.ts';
import type { CreditHolds } from '../../billing/credit-holds.ts';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';

/** What keys-route.ts uses of the services (handed out by build-app.ts). */
export interface KeysRouteDeps {
  stores: Pick<Stores, 'accounts' | 'generations' | 'keyUsage' | 'ledger' | 'members' | 'transaction'>;
  accountService: AccountService;
  auth: Authenticator;
  reservations: CreditHolds;
  webhooks: WebhookDispatcher;
  now: () => number;
}

// The key-management API in OpenRouter's form. Only a management key (or a member's session)
// may call it, and it manages the keys of its own account. Management keys cannot call
// models. Roles (docs/governance.md): a `member` sees and manages only the keys they hold;
// a key created by a member is theirs; a `viewer` has no key access.

const DAY_MS = 86_400_000;
/** A key's own USD limit is at most this (money/amount-bounds.ts: it and any usage fit the ledger's 64-bit integers). */
export const MAX_KEY_LIMIT_USD = MAX_AMOUNT_USD;
const MAX_KEY_LIMIT_NANOS = MAX_AMOUNT_NANOS;

// The schemas each call takes (strict: any other field or query parameter is a 400 naming
// it and the nearest known one); the OpenAPI document shows the same.
const tags = ['keys'];
const hashParams = { hash: 'The key hash.' };
const LIMIT = FIELD.usdOrNull(`USD, 0 to ${MAX_AMOUNT_USD}, at most 9 decimals; null: no limit of its own`);
const SCHEMA = {
  list: routeSchema({
    summary: "The account's API keys (management key)",
    tags,
    query: {
      member: 'A member id (mem_...): only the keys this member holds.',
      offset: { type: 'integer', minimum: 0, description: 'Skip this many keys.' },
      include_disabled: { type: 'boolean', description: 'false hides disabled keys.' },
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size, 1..100 (default 100).' },
      cursor: 'The `next_cursor` of the previous page.',
    },
    response: '{data: [key], next_cursor}',
    answers: 'AccountKeyPage',
  }),
  create: routeSchema({
    summary: 'Create an API key (management key); the key is in the answer, this once',
    tags,
    status: 201,
    response: '{data: key, key}',
    answers: 'AccountKeyCreated',
    body: bodySchema(
      {
        name: FIELD.name,
        limit: LIMIT,
        limit_reset: FIELD.limitReset,
        expires_at: FIELD.expiresAt,
        management: { type: 'boolean', description: 'Only false: management keys are made by the operator.' },
        ...ALLOWLIST_FIELDS,
        max_in_flight: MAX_IN_FLIGHT_FIELD,
      },
      { required: ['name'] },
    ),
  }),
  one: routeSchema({
    summary: 'One API key of the account (management key)',
    tags,
    params: hashParams,
    response: '{data: key}',
    answers: 'AccountKeyAnswer',
  }),
  update: routeSchema({
    summary: 'Rename, disable/enable, limit an API key, or change what it may reach (management key)',
    tags,
    params: hashParams,
    response: '{data: key}',
    answers: 'AccountKeyAnswer',
    body: bodySchema(
      {
        name: FIELD.name,
        disabled: { type: 'boolean' },
        limit: LIMIT,
        limit_reset: FIELD.limitReset,
        ...ALLOWLIST_FIELDS,
        max_in_flight: MAX_IN_FLIGHT_FIELD,
      },
      { atLeastOne: true },
    ),
  }),
  rotate: routeSchema({
    summary:
      'Rotate an API key (management key): a new secret for the same key, in the answer this once; the old one works `overlap_seconds` more',
    tags,
    params: hashParams,
    response: '{data: key, key, previous_key_expires_at}',
    answers: 'AccountKeyRotated',
    body: ROTATE_BODY,
  }),
  remove: routeSchema({
    summary: 'Delete an API key (management key)',
    tags,
    params: hashParams,
    response: '{deleted: true}',
    answers: 'Deleted',
  }),
};

export function registerKeysRoutes(app: FastifyInstance, deps: KeysRouteDeps, prefixes: readonly string[]): void {
  // Every route here authenticates a management key from the headers before its body is read
  // (route-access.ts): neither a parse nor the schema's check comes first.
  const manager = async (request: FastifyRequest): Promise<AuthContext> => requestAuth(request);
  const managed = access('management', { role: 'member', denied: 'The key-management API needs a management key.' }).config;
  // Management keys manage the account's API keys only: its management keys (the caller's
  // siblings, and the caller itself) and admin keys are the operator's, so they are not
  // found here, as keys of another account are not.
  const ownKey = async (auth: AuthContext, hash: string): Promise<KeyRecord> => {
    const key = await deps.stores.accounts.getKey(hash);
    if (
      key === undefined ||
      key.accountId !== auth.account.id ||
      key.isAdmin ||
      key.isManagement ||
      (ownKeysOnly(auth) && key.memberId !== auth.member?.id)
    ) {
      throw new GatewayError('not_found', `No key with hash "${hash}".`);
    }
    return key;
  };

  for (const prefix of prefixes) {
    app.get(`${prefix}/keys`, { config: managed, schema: SCHEMA.list }, async (request) => {
      const auth = await manager(request);
      const q = request.query as Record<string, string | undefined>;
      const { limit, offset, after } = keysPageQuery(q);
      const memberId = await accountMemberFilter(deps, auth, q);
      if (memberId !== undefined)
        return {
          data: await Promise.all((await memberKeys(deps, memberId, q, offset, limit)).map((k) => keyView(deps, k))),
          next_cursor: null,
        };
      const filter = { accountId: auth.account.id, apiKeysOnly: true, activeOnly: q.include_disabled === 'false' };
      const rows = await deps.stores.accounts.keysPage(filter, after, limit + 1, offset);
      const more = rows.length > limit;
      const keys = more ? rows.slice(0, limit) : rows;
      const last = keys[keys.length - 1];
      return {
        data: await Promise.all(keys.map((k) => keyView(deps, k))),
        next_cursor: more && last !== undefined ? encodeCursor([last.createdAt, last.hash]) : null,
      };
    });

    app.post(`${prefix}/keys`, { config: managed, schema: SCHEMA.create }, async (request, reply) => {
      const auth = await manager(request);
      const body = objectBody(request.body);
      // As OpenRouter's provisioning keys, management keys are made outside this API: a
      // management key that could mint more would outlive its own revocation.
      if (body.management !== undefined && body.management !== false) {
        throw new GatewayError(
          'invalid_parameter',
          '"management": management keys are created by the gateway operator (`switchyard keys create --management`), not through this API, which creates API keys only.',
          { param: 'management' },
        );
      }
      const name = body.name;
      if (typeof name !== 'string' || name.trim() === '')
        throw new GatewayError('missing_parameter', 'Missing required parameter: "name".', { param: 'name' });
      checkName(name);
      const limitUsd = readLimit(body.limit);
      const limitReset = readLimitReset(body.limit_reset);
      if (limitReset !== null && limitUsd === null) throw noLimitToReset();
      const expiresAt = readExpiry(body.expires_at);
      const allowlist = applyAllowlist(null, readAllowlistChange(body));
      const maxInFlight = body.max_in_flight === undefined ? null : readMaxInFlight(body.max_in_flight);
      const created = await deps.stores.transaction(async (tx) => {
        const out = await deps.accountService
          .within(tx)
          .createKey({ accountId: auth.account.id, name, limitUsd, limitReset, expiresAt, allowlist, maxInFlight });
        // A member's key is theirs.
        const memberId = auth.member?.id ?? null;
        if (memberId !== null) {
          await tx.members.setKeyMember(out.record.hash, memberId);
          out.record = { ...out.record, memberId };
        }
        await tx.audit.record(
          actorOf(auth),
          'key.create',
          out.record.hash,
          {
            account_id: auth.account.id,
            label: out.record.label,
            kind: 'api',
            limit: limitUsd,
            limit_reset: limitReset,
            expires_at: expiresAt,
            ...(memberId === null ? {} : { member_id: memberId }),
            // Only what was set: a key made without them is audited as before.
            ...(allowlist === null ? {} : allowlistView(allowlist)),
            ...(maxInFlight === null ? {} : { max_in_flight: maxInFlight }),
          },
          new Date().toISOString(),
        );
        return out;
      });
      await deps.webhooks.emit(auth.account.id, 'key.created', keyEvent(created.record, 'account'));
      reply.code(201);
      return { data: await keyView(deps, created.record), key: created.key };
    });

    app.get(`${prefix}/keys/:hash`, { config: managed, schema: SCHEMA.one }, async (request) => {
      const auth = await manager(request);
      return { data: await keyView(deps, await ownKey(auth, (request.params as { hash: string }).hash)) };
    });

    app.patch(`${prefix}/keys/:hash`, { config: managed, schema: SCHEMA.update }, async (request) => {
      const auth = await manager(request);
      const key = await ownKey(auth, (request.params as { hash: string }).hash);
      const body = objectBody(request.body);
      const patch: KeyPatch = {};
      if (body.name !== undefined) {
        if (typeof body.name !== 'string' || body.name.trim() === '')
          throw new GatewayError('invalid_parameter', '"name" must be a non-empty string.', { param: 'name' });
        checkName(body.name);
        patch.name = body.name;
      }
      if (body.disabled !== undefined) {
        if (typeof body.disabled !== 'boolean')
          throw new GatewayError('invalid_parameter', '"disabled" must be a boolean.', { param: 'disabled' });
        patch.isActive = !body.disabled;
        if (patch.isActive && key.disabledBy === 'operator') {
          throw new GatewayError(
            'forbidden',
            'This key was revoked by the gateway operator; it cannot be enabled again through the API. Ask the operator, or create a new key.',
          );
        }
      }
      if ('limit' in body) {
        const limit = readLimit(body.limit);
        patch.limitNanos = limit === null ? null : usdToNanos(limit);
      }
      if ('limit_reset' in body) patch.limitReset = readLimitReset(body.limit_reset);
      const allowlistChange = readAllowlistChange(body);
      if (allowlistChange !== null) patch.allowlist = applyAllowlist(key.allowlist, allowlistChange);
      if ('max_in_flight' in body) patch.maxInFlight = readMaxInFlight(body.max_in_flight);
      const limitAfter = patch.limitNanos !== undefined ? patch.limitNanos : key.limitNanos;
      if (limitAfter === null) {
        if (patch.limitReset != null) throw noLimitToReset();
        if (key.limitReset !== null) patch.limitReset = null; // no limit: nothing to reset
      }
      const updated = await deps.stores.transaction(async (tx) => {
        const at = new Date().toISOString();
        const out = stillThere(await tx.accounts.updateKey(key.hash, patch, at), `The key ${key.label}`);
        for (const [action, details] of auditedChanges(key, patch)) await tx.audit.record(actorOf(auth), action, key.hash, details, at);
        return out;
      });
      deps.auth.invalidate(key.hash); // disabling takes effect at once
      deps.reservations.forget(key.hash);
      if (patch.isActive === false && key.isActive)
        await deps.webhooks.emit(key.accountId, 'key.revoked', { ...keyEvent(key, 'account'), reason: 'disabled' });
      return { data: await keyView(deps, updated) };
    });

    app.post(`${prefix}/keys/:hash/rotate`, { config: managed, schema: SCHEMA.rotate, preValidation: noBodyIsEmpty }, async (request) => {
      const auth = await manager(request);
      const key = await ownKey(auth, (request.params as { hash: string }).hash);
      const rotated = await rotateKey(deps, auth, key, request.body, 'account');
      return { data: await keyView(deps, rotated.record), key: rotated.key, previous_key_expires_at: rotated.previousUntil };
    });

    app.delete(`${prefix}/keys/:hash`, { config: managed, schema: SCHEMA.remove }, async (request) => {
      const auth = await manager(request);
      const key = await ownKey(auth, (request.params as { hash: string }).hash);
      await deps.stores.transaction(async (tx) => {
        await tx.accounts.deleteKey(key.hash);
        await tx.audit.record(
          actorOf(auth),
          'key.delete',
          key.hash,
          { account_id: key.accountId, label: key.label, name: key.name },
          new Date().toISOString(),
        );
      });
      deps.auth.invalidate(key.hash);
      deps.reservations.forget(key.hash);
      await deps.webhooks.emit(key.accountId, 'key.revoked', { ...keyEvent(key, 'account'), reason: 'deleted' });
      return { deleted: true };
    });

    app.get(`${prefix}/credits`, access('key'), async (request) => {
      const auth = requestAuth(request);
      const totals = await deps.stores.ledger.totals(auth.account.id);
      return { data: { total_credits: nanosToNumber(totals.creditsNanos), total_usage: nanosToNumber(totals.usageNanos) } };
    });
  }
}

/** A member's own API keys (few: one page, no cursor), as the list filters them. */
async function memberKeys(
  deps: KeysRouteDeps,
  memberId: string,
  q: Record<string, string | undefined>,
  offset: number,
  limit: number,
): Promise<KeyRecord[]> {
  const keys: KeyRecord[] = [];
  for (const hash of await deps.stores.members.keyHashes(memberId)) {
    const k = await deps.stores.accounts.getKey(hash);
    if (k === undefined || k.isManagement || k.isAdmin || (q.include_disabled === 'false' && !k.isActive)) continue;
    keys.push(k);
  }
  return keys.slice(offset, offset + limit);
}

/** At most this many keys a page, as OpenRouter's `GET /keys` (its `offset` pages by 100). */
export const KEYS_PAGE = 100;

/** `offset` (OpenRouter's: skips that many), `limit` (1..100, default 100) and `cursor` (the previous page's `next_cursor`). */
function keysPageQuery(q: Record<string, string | undefined>): { limit: number; offset: number; after: [string, string] | null } {
  const int = (name: string, min: number, max: number, fallback: number): number => {
    const v = q[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new GatewayError('invalid_parameter', `"${name}" must be an integer from ${min} to ${max}.`, { param: name });
    return n;
  };
  return { limit: int('limit', 1, KEYS_PAGE, KEYS_PAGE), offset: int('offset', 0, 1_000_000, 0), after: decodeCursor(q, isTimeIdCursor) };
}

/** The audit rows of a PATCH: one per kind of change, named as the admin API names them (plus `key.rename`). */
function auditedChanges(key: KeyRecord, patch: KeyPatch): Array<[string, Record<string, unknown>]> {
  const who = { account_id: key.accountId, label: key.label };
  const out: Array<[string, Record<string, unknown>]> = [];
  if (patch.name !== undefined) out.push(['key.rename', { ...who, name: patch.name }]);
  if (patch.isActive !== undefined) out.push([patch.isActive ? 'key.enable' : 'key.disable', who]);
  if (patch.limitNanos !== undefined || patch.limitReset !== undefined) {
    const limit = patch.limitNanos !== undefined ? patch.limitNanos : key.limitNanos;
    const reset = patch.limitReset !== undefined ? patch.limitReset : key.limitReset;
    out.push(['key.limit', { ...who, limit: limit === null ? null : formatNanos(limit), limit_reset: reset }]);
  }
  if (patch.allowlist !== undefined || patch.maxInFlight !== undefined) out.push(['key.access', accessAudit(key, patch)]);
  return out;
}

/** The audit row of a change of what a key may reach: the whole allowlist and cap after it. */
export function accessAudit(key: KeyRecord, patch: { allowlist?: Allowlist | null; maxInFlight?: number | null }): Record<string, unknown> {
  const list = patch.allowlist !== undefined ? patch.allowlist : key.allowlist;
  const cap = patch.maxInFlight !== undefined ? patch.maxInFlight : key.maxInFlight;
  return { account_id: key.accountId, label: key.label, ...allowlistView(list), max_in_flight: cap };
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** A USD limit as decimal text, at most MAX_KEY_LIMIT_USD; null (or absent) means no limit of the key's own. */
function readLimit(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  if (text === '' || text.length > 64 || !/^\d+(\.\d{1,9})?$/.test(text) || usdToNanos(text) > MAX_KEY_LIMIT_NANOS) {
    throw new GatewayError(
      'invalid_parameter',
      `"limit" must be a USD amount from 0 to ${MAX_KEY_LIMIT_USD} with at most 9 decimals, or null.`,
      { param: 'limit' },
    );
  }
  return text;
}

/** `limit_reset`: "daily", "weekly", "monthly", or null (absent: null) — OpenRouter's values. */
function readLimitReset(value: unknown): KeyLimitReset | null {
  if (value === undefined || value === null) return null;
  if (!isKeyLimitReset(value))
    throw new GatewayError('invalid_parameter', '"limit_reset" must be "daily", "weekly", "monthly" or null.', { param: 'limit_reset' });
  return value;
}

function noLimitToReset(): GatewayError {
  return new GatewayError('invalid_parameter', '"limit_reset" needs a "limit": without a limit there is nothing to reset.', {
    param: 'limit_reset',
  });
}

function readExpiry(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > 64 || Number.isNaN(Date.parse(value))) {
    throw new GatewayError('invalid_parameter', '"expires_at" must be an ISO 8601 date-time.', { param: 'expires_at' });
  }
  if (Date.parse(value) <= Date.now())
    throw new GatewayError('invalid_parameter', '"expires_at" must be in the future.', { param: 'expires_at' });
  return value;
}

async function keyView(deps: KeysRouteDeps, k: KeyRecord): Promise<Record<string, unknown>> {
  const now = deps.now();
  const since = async (days: number) =>
    nanosToNumber((await deps.stores.generations.keyUsageSince(k.hash, new Date(now - days * DAY_MS).toISOString())).costNanos);
  const [daily, weekly, monthly, remaining] = await Promise.all([
    since(1),
    since(7),
    since(30),
    limitRemaining(k, now, (a, h, days) => deps.stores.keyUsage.costOnDays(a, h, days)),
  ]);
  return {
    hash: k.hash,
    name: k.name,
    label: k.label,
    disabled: !k.isActive,
    status: keyStatus(k, now),
    limit: k.limitNanos === null ? null : nanosToNumber(k.limitNanos),
    limit_remaining: remaining,
    limit_reset: k.limitReset,
    usage: nanosToNumber(k.usageNanos),
    usage_daily: daily,
    usage_weekly: weekly,
    usage_monthly: monthly,
    member_id: k.memberId,
    created_at: k.createdAt,
    updated_at: k.updatedAt,
    expires_at: k.expiresAt,
    last_used: k.lastUsed,
    ...allowlistView(k.allowlist),
    max_in_flight: k.maxInFlight,
  };
}
