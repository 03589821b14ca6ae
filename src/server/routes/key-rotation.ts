import type { FastifyRequest } from 'fastify';
import { MAX_ROTATION_OVERLAP_SECONDS, type AccountService } from '../../billing/account-service.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { KeyRecord } from '../../store/account-records.ts';
import { keyEvent } from '../webhooks/webhook-events.ts';
import { actorOf, stillThere } from './admin/admin-common.ts';
import { bodySchema } from './admin/route-schema.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { Authenticator, AuthContext } from '../../auth/authenticate.ts';
import type { CreditHolds } from '../../billing/credit-holds.ts';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';

/** What key-rotation.ts uses of the services (handed out by build-app.ts). */
export interface KeyRotationDeps {
  stores: Pick<Stores, 'transaction'>;
  accountService: AccountService;
  auth: Authenticator;
  reservations: CreditHolds;
  webhooks: WebhookDispatcher;
  now: () => number;
}

// Key rotation (POST /keys/{hash}/rotate, and the admin API's): a new secret for the same
// key record; the old secret works for `overlap_seconds` more (default 0), then gets 401.

/** The body both routes take (strict: another field is a 400 naming it); no body at all is `{}`. */
export const ROTATE_BODY = bodySchema({
  overlap_seconds: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_ROTATION_OVERLAP_SECONDS,
    description: `Seconds the old secret keeps working, 0 (default: it stops at once) to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days).`,
  },
});

/** The routes' preValidation: a POST without a body is `{}` (all defaults), not a missing object. */
export async function noBodyIsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export interface Rotated {
  key: string;
  record: KeyRecord;
  previousUntil: string | null;
}

/**
 * Rotates `key` (already found and allowed), audits it (`key.rotate`), drops every cached
 * secret of it here and, in a fleet, on every instance (after the commit), and sends the
 * account's `key.rotated` webhook event.
 */
export async function rotateKey(
  deps: KeyRotationDeps,
  auth: AuthContext,
  key: KeyRecord,
  body: unknown,
  by: 'account' | 'operator',
): Promise<Rotated> {
  const overlap = readOverlap(body);
  const rotated = await deps.stores.transaction(async (tx) => {
    const out = stillThere(await deps.accountService.within(tx).rotateKey(key.hash, overlap, new Date(deps.now())), `The key ${key.label}`);
    await tx.audit.record(
      actorOf(auth),
      'key.rotate',
      key.hash,
      {
        account_id: key.accountId,
        label: key.label,
        by,
        overlap_seconds: overlap,
        previous_key_expires_at: out.previousUntil,
      },
      new Date().toISOString(),
    );
    return out;
  });
  deps.auth.invalidate(key.hash);
  deps.reservations.forget(key.hash, key.accountId);
  await deps.webhooks.emit(key.accountId, 'key.rotated', {
    ...keyEvent(rotated.record, by),
    overlap_seconds: overlap,
    previous_key_expires_at: rotated.previousUntil,
  });
  return rotated;
}

function readOverlap(body: unknown): number {
  if (body === undefined || body === null) return 0;
  if (typeof body !== 'object' || Array.isArray(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  const v = (body as Record<string, unknown>).overlap_seconds;
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_ROTATION_OVERLAP_SECONDS) {
    throw new GatewayError(
      'invalid_parameter',
      `"overlap_seconds" must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days).`,
      { param: 'overlap_seconds' },
    );
  }
  return v;
}
