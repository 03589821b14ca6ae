import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import { nanosToNumber, usdToNanos } from '../../billing/money.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { KeyRecord } from '../../store/account-store.ts';
import type { Services } from '../services.ts';

// The key-management API in OpenRouter's form. Only a management key may call it, and it
// manages the keys of its own account. Management keys cannot call models.

const DAY_MS = 86_400_000;

export function registerKeysRoutes(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  const manager = (request: FastifyRequest): AuthContext => {
    const auth = services.auth.authenticate(bearer(request));
    if (!auth.key.isManagement) throw new GatewayError('forbidden', 'The key-management API needs a management key.');
    return auth;
  };
  const ownKey = (auth: AuthContext, hash: string): KeyRecord => {
    const key = services.accounts.getKey(hash);
    if (key === undefined || key.accountId !== auth.account.id || key.isAdmin) throw new GatewayError('not_found', `No key with hash "${hash}".`);
    return key;
  };

  for (const prefix of prefixes) {
    app.get(`${prefix}/keys`, async (request) => {
      const auth = manager(request);
      const q = request.query as { offset?: string; include_disabled?: string };
      const offset = Math.max(0, Number.parseInt(q.offset ?? '0', 10) || 0);
      const keys = services.accounts.listKeys(auth.account.id)
        .filter((k) => !k.isManagement && !k.isAdmin && (q.include_disabled !== 'false' || k.isActive))
        .slice(offset, offset + 100);
      return { data: keys.map((k) => keyView(services, k)) };
    });

    app.post(`${prefix}/keys`, async (request, reply) => {
      const auth = manager(request);
      const body = objectBody(request.body);
      const name = body.name;
      if (typeof name !== 'string' || name.trim() === '') throw new GatewayError('missing_parameter', 'Missing required parameter: "name".', { param: 'name' });
      const created = services.accountService.createKey({
        accountId: auth.account.id,
        name,
        limitUsd: readLimit(body.limit),
        expiresAt: readExpiry(body.expires_at),
      });
      reply.code(201);
      return { data: keyView(services, created.record), key: created.key };
    });

    app.get(`${prefix}/keys/:hash`, async (request) => {
      const auth = manager(request);
      return { data: keyView(services, ownKey(auth, (request.params as { hash: string }).hash)) };
    });

    app.patch(`${prefix}/keys/:hash`, async (request) => {
      const auth = manager(request);
      const key = ownKey(auth, (request.params as { hash: string }).hash);
      const body = objectBody(request.body);
      const patch: { name?: string; isActive?: boolean; limitNanos?: bigint | null } = {};
      if (body.name !== undefined) {
        if (typeof body.name !== 'string' || body.name.trim() === '') throw new GatewayError('invalid_parameter', '"name" must be a non-empty string.', { param: 'name' });
        patch.name = body.name;
      }
      if (body.disabled !== undefined) {
        if (typeof body.disabled !== 'boolean') throw new GatewayError('invalid_parameter', '"disabled" must be a boolean.', { param: 'disabled' });
        patch.isActive = !body.disabled;
        if (patch.isActive && key.disabledBy === 'operator') {
          throw new GatewayError('forbidden', 'This key was revoked by the gateway operator; it cannot be enabled again through the API. Ask the operator, or create a new key.');
        }
      }
      if ('limit' in body) {
        const limit = readLimit(body.limit);
        patch.limitNanos = limit === null ? null : usdToNanos(limit);
      }
      const updated = services.accounts.updateKey(key.hash, patch, new Date().toISOString())!;
      services.auth.invalidate(key.hash); // disabling takes effect at once
      services.reservations.forget(key.hash);
      return { data: keyView(services, updated) };
    });

    app.delete(`${prefix}/keys/:hash`, async (request) => {
      const auth = manager(request);
      const key = ownKey(auth, (request.params as { hash: string }).hash);
      services.accounts.deleteKey(key.hash);
      services.auth.invalidate(key.hash);
      services.reservations.forget(key.hash);
      return { deleted: true };
    });

    app.get(`${prefix}/credits`, async (request) => {
      const auth = services.auth.authenticate(bearer(request));
      const totals = services.ledger.totals(auth.account.id);
      return { data: { total_credits: nanosToNumber(totals.creditsNanos), total_usage: nanosToNumber(totals.usageNanos) } };
    });
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  return h !== undefined && /^bearer /i.test(h) ? h.slice(7).trim() : undefined;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** A USD limit as decimal text; null (or absent) means no limit of the key's own. */
function readLimit(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if ((typeof value !== 'number' && typeof value !== 'string') || !/^\d+(\.\d{1,9})?$/.test(String(value))) {
    throw new GatewayError('invalid_parameter', '"limit" must be a non-negative USD amount with at most 9 decimals, or null.', { param: 'limit' });
  }
  return String(value);
}

function readExpiry(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new GatewayError('invalid_parameter', '"expires_at" must be an ISO 8601 date-time.', { param: 'expires_at' });
  }
  if (Date.parse(value) <= Date.now()) throw new GatewayError('invalid_parameter', '"expires_at" must be in the future.', { param: 'expires_at' });
  return value;
}

function keyView(services: Services, k: KeyRecord): Record<string, unknown> {
  const now = Date.now();
  const since = (days: number) => nanosToNumber(services.generations.keyUsageSince(k.hash, new Date(now - days * DAY_MS).toISOString()).costNanos);
  return {
    hash: k.hash,
    name: k.name,
    label: k.label,
    disabled: !k.isActive,
    limit: k.limitNanos === null ? null : nanosToNumber(k.limitNanos),
    limit_remaining: k.limitNanos === null ? null : nanosToNumber(k.limitNanos - k.usageNanos),
    usage: nanosToNumber(k.usageNanos),
    usage_daily: since(1),
    usage_weekly: since(7),
    usage_monthly: since(30),
    created_at: k.createdAt,
    updated_at: k.updatedAt,
    expires_at: k.expiresAt,
    last_used: k.lastUsed,
  };
}
