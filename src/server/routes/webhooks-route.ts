import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { DeliveryRow, WebhookRow } from '../../store/webhook-store.ts';
import { access, requestAuth } from '../route-access.ts';
import { privateAddressOf } from '../../net/ssrf-guard.ts';
import { newId, type WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { WebhookSecrets } from '../webhooks/webhook-secrets.ts';
import { WEBHOOK_EVENTS } from '../webhooks/webhook-events.ts';
import { actorOf } from './admin/admin-common.ts';
import { bodySchema, routeSchema } from './admin/route-schema.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What webhooks-route.ts uses of the services (handed out by build-app.ts). */
export interface WebhooksRouteDeps {
  stores: Pick<Stores, 'transaction' | 'webhooks'>;
  inForce: Pick<InForce, 'config'>;
  webhooks: WebhookDispatcher;
  webhookSecrets: WebhookSecrets;
}

// An account's webhooks (docs/webhooks.md): a management key (or its dashboard session)
// registers endpoints for its own account, lists them and their deliveries, removes them and
// replays a delivery. The secret is in the answer once, at creation.

const MAX_WEBHOOKS = 20;
const MAX_URL_CHARS = 2048;
const tags = ['webhooks'];
const idParam = { id: 'The webhook id (wh_...).' };
const SCHEMA = {
  list: routeSchema({ summary: "The account's webhooks (management key)", tags, response: '{data: [webhook]}', answers: 'WebhookList' }),
  create: routeSchema({
    summary: 'Register a webhook (management key); the secret is in the answer, this once',
    tags,
    status: 201,
    response: '{data: webhook, secret}',
    answers: 'WebhookCreated',
    body: bodySchema(
      {
        url: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_URL_CHARS,
          description: 'An https:// or http:// URL the deliveries are POSTed to.',
        },
        events: {
          type: 'array',
          minItems: 1,
          maxItems: WEBHOOK_EVENTS.length,
          uniqueItems: true,
          items: { enum: [...WEBHOOK_EVENTS] },
          description: `Events to deliver: ${WEBHOOK_EVENTS.join(', ')}.`,
        },
        secret: {
          type: 'string',
          minLength: 16,
          maxLength: 256,
          description: 'The signing secret (16 to 256 characters); absent: one is made.',
        },
      },
      { required: ['url', 'events'] },
    ),
  }),
  remove: routeSchema({
    summary: 'Remove a webhook and its delivery log (management key)',
    tags,
    params: idParam,
    response: '{deleted: true}',
    answers: 'Deleted',
  }),
  deliveries: routeSchema({
    summary: "A webhook's deliveries, newest first, with each attempt (management key)",
    tags,
    params: idParam,
    query: { limit: 'At most this many, 1..100 (default 50).' },
    response: '{data: [delivery]}',
    answers: 'WebhookDeliveries',
  }),
  replay: routeSchema({
    summary: "Send a delivery's event again, as a new delivery (management key)",
    tags,
    status: 202,
    response: '{data: delivery}',
    answers: 'WebhookDeliveryAnswer',
    params: { id: 'The webhook id (wh_...).', delivery: 'The delivery id (whd_...).' },
  }),
};

function webhookView(w: WebhookRow): Record<string, unknown> {
  return { id: w.id, url: w.url, events: w.events, created_at: w.createdAt };
}

function deliveryView(
  d: DeliveryRow,
  attempts: Array<{ attempt: number; at: string; status: number | null; error: string | null; durationMs: number }>,
): Record<string, unknown> {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status: d.lastStatus,
    last_error: d.lastError,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt : null,
    created_at: d.createdAt,
    delivered_at: d.deliveredAt,
    attempt_log: attempts.map((a) => ({ attempt: a.attempt, at: a.at, status: a.status, error: a.error, duration_ms: a.durationMs })),
  };
}

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhooksRouteDeps, prefixes: readonly string[]): void {
  const managed = access('management', { role: 'admin', denied: 'Webhooks are managed with a management key of the account.' }).config;
  const manager = async (request: FastifyRequest): Promise<AuthContext> => requestAuth(request);
  const ownHook = async (auth: AuthContext, id: string): Promise<WebhookRow> => {
    const w = await deps.stores.webhooks.get(id);
    if (w === undefined || w.accountId !== auth.account.id) throw new GatewayError('not_found', `No webhook with id "${id}".`);
    return w;
  };

  for (const prefix of prefixes) {
    app.get(`${prefix}/webhooks`, { config: managed, schema: SCHEMA.list }, async (request) => {
      const auth = await manager(request);
      return { data: (await deps.stores.webhooks.list(auth.account.id)).map(webhookView) };
    });

    app.post(`${prefix}/webhooks`, { config: managed, schema: SCHEMA.create }, async (request, reply) => {
      const auth = await manager(request);
      const body = request.body as { url: string; events: string[]; secret?: string };
      const url = await checkUrl(body.url, deps.inForce.config.webhooks.allowPrivateAddresses);
      if ((await deps.stores.webhooks.list(auth.account.id)).length >= MAX_WEBHOOKS) {
        throw new GatewayError('forbidden', `An account has at most ${MAX_WEBHOOKS} webhooks; remove one first.`);
      }
      const secret = body.secret ?? `whsec_${randomBytes(32).toString('base64url')}`;
      const id = newId('wh');
      // Sealed before it is stored: the database never holds it in clear (webhook-secrets.ts).
      const hook: WebhookRow = {
        id,
        accountId: auth.account.id,
        url: url.href,
        events: body.events,
        ...deps.webhookSecrets.seal(id, auth.account.id, secret),
        createdAt: new Date().toISOString(),
      };
      await deps.stores.transaction(async (tx) => {
        await tx.webhooks.create(hook);
        await tx.audit.record(
          actorOf(auth),
          'webhook.create',
          hook.id,
          { account_id: hook.accountId, url: hook.url, events: hook.events },
          hook.createdAt,
        );
      });
      reply.code(201);
      return { data: webhookView(hook), secret };
    });

    app.delete(`${prefix}/webhooks/:id`, { config: managed, schema: SCHEMA.remove }, async (request) => {
      const auth = await manager(request);
      const hook = await ownHook(auth, (request.params as { id: string }).id);
      await deps.stores.transaction(async (tx) => {
        await tx.webhooks.remove(hook.id);
        await tx.audit.record(
          actorOf(auth),
          'webhook.delete',
          hook.id,
          { account_id: hook.accountId, url: hook.url },
          new Date().toISOString(),
        );
      });
      return { deleted: true };
    });

    app.get(`${prefix}/webhooks/:id/deliveries`, { config: managed, schema: SCHEMA.deliveries }, async (request) => {
      const auth = await manager(request);
      const hook = await ownHook(auth, (request.params as { id: string }).id);
      const limit = readLimit((request.query as { limit?: string }).limit);
      const rows = await deps.stores.webhooks.deliveries(hook.id, limit);
      return { data: await Promise.all(rows.map(async (d) => deliveryView(d, await deps.stores.webhooks.attempts(d.id)))) };
    });

    app.post(`${prefix}/webhooks/:id/deliveries/:delivery/replay`, { config: managed, schema: SCHEMA.replay }, async (request, reply) => {
      const auth = await manager(request);
      const params = request.params as { id: string; delivery: string };
      const hook = await ownHook(auth, params.id);
      const d = await deps.stores.webhooks.delivery(params.delivery);
      if (d === undefined || d.webhookId !== hook.id)
        throw new GatewayError('not_found', `No delivery with id "${params.delivery}" for this webhook.`);
      const replayed = await deps.webhooks.replay(d);
      reply.code(202);
      return { data: deliveryView(replayed, []) };
    });
  }
}

function readLimit(v: string | undefined): number {
  if (v === undefined) return 50;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 100)
    throw new GatewayError('invalid_parameter', '"limit" must be an integer from 1 to 100.', { param: 'limit' });
  return n;
}

/** An http(s) URL without credentials whose host resolves, and (unless allowed) to no private address. */
async function checkUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new GatewayError('invalid_parameter', '"url" must be an absolute http:// or https:// URL.', { param: 'url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GatewayError('invalid_parameter', '"url" must be an http:// or https:// URL.', { param: 'url' });
  if (url.username !== '' || url.password !== '')
    throw new GatewayError('invalid_parameter', '"url" must not carry credentials; sign with the secret instead.', { param: 'url' });
  if (allowPrivate) return url;
  let bad: string | null;
  try {
    bad = await privateAddressOf(url);
  } catch {
    throw new GatewayError('invalid_parameter', `"url": the host ${url.hostname} does not resolve.`, { param: 'url' });
  }
  if (bad !== null) {
    throw new GatewayError(
      'invalid_parameter',
      `"url": ${url.hostname} is or resolves to ${bad}, a private, loopback or link-local address; webhooks are not delivered there unless the operator sets webhooks.allow_private_addresses: true.`,
      { param: 'url' },
    );
  }
  return url;
}
