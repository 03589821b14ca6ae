import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { WebhooksConfig } from '../../config/parse-webhooks.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { DeliveryRow } from '../../store/webhook-store.ts';
import { bareHost, guardedLookup, isPrivateAddress, PrivateAddressError } from '../../net/ssrf-guard.ts';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.ts';
import type { WebhookSecrets } from './webhook-secrets.ts';
import type { WebhookEventType } from './webhook-events.ts';

// Webhook deliveries off the request path. emit() writes one outbox row per subscribed
// endpoint (webhook_deliveries) and returns; a loop sends the due rows, each claimed first
// (so two instances of a fleet never send one attempt twice), at most MAX_IN_FLIGHT at once,
// each bounded by `webhooks.timeout_ms`, and records each attempt. A failed attempt is
// retried after retry_base_ms × 2^(n-1) (at most an hour) until max_attempts, then `failed`.
// A model request only ever waits for emit's insert, never for a receiver.

const MAX_IN_FLIGHT = 16;
const MAX_DELAY_MS = 3_600_000;
/** A claim outlives the attempt's timeout by this much; a crashed instance's claim is then retried. */
const LEASE_SLACK_MS = 5_000;

export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface WebhookDispatcherOptions {
  stores: Stores;
  config: () => WebhooksConfig;
  now: () => number;
  log: (message: string) => void;
  /** Opens the endpoints' signing secrets; absent (a CLI that only queues events): nothing is sent. */
  secrets?: WebhookSecrets;
}

export class WebhookDispatcher {
  private readonly o: WebhookDispatcherOptions;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private passing = false;
  private again = false;
  private stopped = false;
  private agent: Agent | null = null;
  private agentKey = '';

  constructor(o: WebhookDispatcherOptions) {
    this.o = o;
  }

  log(message: string): void {
    this.o.log(message);
  }

  start(): void {
    this.schedule(0);
  }

  /** Queues `type` for every endpoint of the account that subscribed to it; never throws (the outcome is logged). */
  async emit(accountId: string, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
    try {
      const hooks = (await this.o.stores.webhooks.list(accountId)).filter((w) => w.events.includes(type));
      if (hooks.length === 0) return;
      const created = this.o.now();
      const eventId = newId('evt');
      const body = JSON.stringify({ id: eventId, type, created: Math.floor(created / 1000), data });
      const at = new Date(created).toISOString();
      for (const w of hooks) await this.enqueue({ webhookId: w.id, accountId, eventId, type, body }, at);
      this.schedule(0);
    } catch (err) {
      this.o.log(`webhooks: could not queue ${type} for ${accountId}: ${(err as Error).message}`);
    }
  }

  /** A new delivery of a delivery's event (same event id and body), due now. */
  async replay(d: DeliveryRow): Promise<DeliveryRow> {
    const row = await this.enqueue(d, new Date(this.o.now()).toISOString());
    this.schedule(0);
    return row;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    // Attempts still waiting for a receiver are cut off (recorded as failed, retried later by whichever instance runs).
    await this.agent?.destroy();
    await Promise.allSettled([...this.inFlight]);
  }

  private async enqueue(d: Pick<DeliveryRow, 'webhookId' | 'accountId' | 'eventId' | 'type' | 'body'>, at: string): Promise<DeliveryRow> {
    const row: DeliveryRow = {
      id: newId('whd'),
      webhookId: d.webhookId,
      accountId: d.accountId,
      eventId: d.eventId,
      type: d.type,
      body: d.body,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: at,
      lastStatus: null,
      lastError: null,
      createdAt: at,
      deliveredAt: null,
    };
    // In the stores' transaction queue: on SQLite a bare write could join another call's open transaction (and go with its rollback).
    await this.o.stores.transaction((tx) => tx.webhooks.enqueue(row));
    return row;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (ms === 0 && this.passing) {
      this.again = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), ms);
    this.timer.unref();
  }

  private pollMs(): number {
    return Math.min(1000, this.o.config().retryBaseMs);
  }

  private async pass(): Promise<void> {
    this.timer = null;
    this.passing = true;
    this.again = false;
    try {
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room > 0) {
        const now = this.o.now();
        const due = await this.o.stores.webhooks.due(new Date(now).toISOString(), room);
        const lease = new Date(now + this.o.config().timeoutMs + LEASE_SLACK_MS).toISOString();
        for (const d of due) {
          if (!(await this.o.stores.transaction((tx) => tx.webhooks.claim(d.id, d.nextAttemptAt!, lease)))) continue;
          const p = this.attempt(d)
            .catch((err: unknown) => this.o.log(`webhooks: delivery ${d.id}: ${(err as Error).message}`))
            .finally(() => {
              this.inFlight.delete(p);
              this.schedule(0);
            });
          this.inFlight.add(p);
        }
      }
    } catch (err) {
      this.o.log(`webhooks: the delivery loop could not read the outbox: ${(err as Error).message}`);
    } finally {
      this.passing = false;
      this.schedule(this.again ? 0 : this.pollMs());
    }
  }

  private dispatcher(c: WebhooksConfig): Agent {
    const key = `${c.allowPrivateAddresses}:${c.timeoutMs}`;
    if (this.agent === null || this.agentKey !== key) {
      void this.agent?.close();
      this.agentKey = key;
      this.agent = new Agent({
        headersTimeout: c.timeoutMs,
        bodyTimeout: c.timeoutMs,
        connect: { timeout: c.timeoutMs, ...(c.allowPrivateAddresses ? {} : { lookup: guardedLookup }) },
      });
    }
    return this.agent;
  }

  private async attempt(d: DeliveryRow): Promise<void> {
    const c = this.o.config();
    const hook = await this.o.stores.webhooks.get(d.webhookId);
    if (hook === undefined) return;
    const started = this.o.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const url = new URL(hook.url);
      const host = bareHost(url);
      // An IP literal is connected to without a lookup: checked here.
      if (!c.allowPrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) throw new PrivateAddressError(host, host);
      if (this.o.secrets === undefined) throw new Error('no key to open the signing secret with');
      const secret = this.o.secrets.open(hook);
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.dispatcher(c),
        signal: AbortSignal.timeout(c.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'switchyard-webhooks',
          [SIGNATURE_HEADER]: signatureHeader(secret, d.body, Math.floor(this.o.now() / 1000)),
        },
        body: d.body,
      });
      status = res.statusCode;
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      if (status < 200 || status >= 300) error = `HTTP ${status}`;
    } catch (err) {
      const e = err as Error & { cause?: Error };
      error = (e.cause?.message ?? e.message).slice(0, 500);
    }
    const ended = this.o.now();
    const attempt = d.attempts + 1;
    const ok = error === null;
    const giveUp = !ok && attempt >= c.maxAttempts;
    const delay = Math.min(c.retryBaseMs * 2 ** (attempt - 1), MAX_DELAY_MS);
    await this.o.stores.transaction((tx) =>
      tx.webhooks.recordAttempt(
        { deliveryId: d.id, attempt, at: new Date(started).toISOString(), status, error, durationMs: ended - started },
        {
          status: ok ? 'delivered' : giveUp ? 'failed' : 'pending',
          nextAttemptAt: ok || giveUp ? null : new Date(ended + delay).toISOString(),
          deliveredAt: ok ? new Date(ended).toISOString() : null,
        },
      ),
    );
    if (!ok) this.o.log(`webhooks: delivery ${d.id} (${d.type}) attempt ${attempt} failed: ${error}${giveUp ? '; given up' : ''}`);
  }
}
