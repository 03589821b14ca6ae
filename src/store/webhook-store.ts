// Webhooks and their delivery outbox (tables webhooks, webhook_deliveries, webhook_attempts):
// one implementation over both engines, its SQL written once with `?` parameters
// (Postgres's runner numbers them). Times are ISO 8601 UTC text.

export interface WebhookRow {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  /** The signing secret at rest: its ciphertext (sealed, `secretKey` set), or the secret itself in a row not sealed yet. */
  secret: string;
  /** The secret's data key, sealed by the key `secretMasterKeyId` names (server/webhooks/webhook-secrets.ts); null: `secret` is in clear. */
  secretKey: string | null;
  secretMasterKeyId: string | null;
  createdAt: string;
}

/** A webhook's secret as stored: see WebhookRow. */
export type StoredWebhookSecret = Pick<WebhookRow, 'secret' | 'secretKey' | 'secretMasterKeyId'>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhookId: string;
  accountId: string;
  eventId: string;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface AttemptRow {
  deliveryId: string;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** What an attempt leaves: the delivery's new state. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface WebhookRepository {
  create(w: WebhookRow): Promise<void>;
  /** The account's webhooks, oldest first. */
  list(accountId: string): Promise<WebhookRow[]>;
  get(id: string): Promise<WebhookRow | undefined>;
  /** Removes the webhook with its deliveries and their attempts. */
  remove(id: string): Promise<boolean>;
  enqueue(d: DeliveryRow): Promise<void>;
  /** The webhook's deliveries, newest first. */
  deliveries(webhookId: string, limit: number): Promise<DeliveryRow[]>;
  delivery(id: string): Promise<DeliveryRow | undefined>;
  attempts(deliveryId: string): Promise<AttemptRow[]>;
  /** Pending deliveries due at `now`, soonest first. */
  due(now: string, limit: number): Promise<DeliveryRow[]>;
  /**
   * Takes a due delivery for one attempt: moves its next_attempt_at from `seen` to
   * `leaseUntil`; false if another loop (in any instance) took it first.
   */
  claim(id: string, seen: string, leaseUntil: string): Promise<boolean>;
  recordAttempt(a: AttemptRow, outcome: AttemptOutcome): Promise<void>;
  /** Every account's webhooks (sealing and key rotation). */
  all(): Promise<WebhookRow[]>;
  /** Stores `next` as the webhook's secret if it still holds `previous` (a sealing or rotation racing a change); true when it did. */
  reseal(id: string, previous: StoredWebhookSecret, next: StoredWebhookSecret): Promise<boolean>;
}

/** How the repository reaches its database. */
export interface SqlRunner {
  all(sql: string, params: ReadonlyArray<string | number | null>): Promise<Array<Record<string, unknown>>>;
  /** Returns the rows changed. */
  run(sql: string, params: ReadonlyArray<string | number | null>): Promise<number>;
}

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toWebhook(r: Record<string, unknown>): WebhookRow {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    url: r.url as string,
    events: JSON.parse(r.events as string) as string[],
    secret: r.secret as string,
    secretKey: (r.secret_key as string | null | undefined) ?? null,
    secretMasterKeyId: (r.secret_master_key_id as string | null | undefined) ?? null,
    createdAt: r.created_at as string,
  };
}

function toDelivery(r: Record<string, unknown>): DeliveryRow {
  return {
    id: r.id as string,
    webhookId: r.webhook_id as string,
    accountId: r.account_id as string,
    eventId: r.event_id as string,
    type: r.event_type as string,
    body: r.body as string,
    status: r.status as DeliveryStatus,
    attempts: num(r.attempts),
    nextAttemptAt: r.next_attempt_at as string | null,
    lastStatus: numOrNull(r.last_status),
    lastError: r.last_error as string | null,
    createdAt: r.created_at as string,
    deliveredAt: r.delivered_at as string | null,
  };
}

function toAttempt(r: Record<string, unknown>): AttemptRow {
  return {
    deliveryId: r.delivery_id as string,
    attempt: num(r.attempt),
    at: r.at as string,
    status: numOrNull(r.status),
    error: r.error as string | null,
    durationMs: num(r.duration_ms),
  };
}

export class SqlWebhookRepository implements WebhookRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async create(w: WebhookRow): Promise<void> {
    await this.sql.run(
      'INSERT INTO webhooks (id, account_id, url, events, secret, secret_key, secret_master_key_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [w.id, w.accountId, w.url, JSON.stringify(w.events), w.secret, w.secretKey, w.secretMasterKeyId, w.createdAt],
    );
  }

  async all(): Promise<WebhookRow[]> {
    return (await this.sql.all('SELECT * FROM webhooks ORDER BY created_at, id', [])).map(toWebhook);
  }

  async reseal(id: string, previous: StoredWebhookSecret, next: StoredWebhookSecret): Promise<boolean> {
    return (
      (await this.sql.run(
        `UPDATE webhooks SET secret = ?, secret_key = ?, secret_master_key_id = ?
      WHERE id = ? AND secret = ? AND coalesce(secret_key, '') = ?`,
        [next.secret, next.secretKey, next.secretMasterKeyId, id, previous.secret, previous.secretKey ?? ''],
      )) === 1
    );
  }

  async list(accountId: string): Promise<WebhookRow[]> {
    return (await this.sql.all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, id', [accountId])).map(toWebhook);
  }

  async get(id: string): Promise<WebhookRow | undefined> {
    const r = (await this.sql.all('SELECT * FROM webhooks WHERE id = ?', [id]))[0];
    return r === undefined ? undefined : toWebhook(r);
  }

  async remove(id: string): Promise<boolean> {
    await this.sql.run('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)', [id]);
    await this.sql.run('DELETE FROM webhook_deliveries WHERE webhook_id = ?', [id]);
    return (await this.sql.run('DELETE FROM webhooks WHERE id = ?', [id])) > 0;
  }

  async enqueue(d: DeliveryRow): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_deliveries (id, webhook_id, account_id, event_id, event_type, body, status, attempts,
      next_attempt_at, last_status, last_error, created_at, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        d.id,
        d.webhookId,
        d.accountId,
        d.eventId,
        d.type,
        d.body,
        d.status,
        d.attempts,
        d.nextAttemptAt,
        d.lastStatus,
        d.lastError,
        d.createdAt,
        d.deliveredAt,
      ],
    );
  }

  async deliveries(webhookId: string, limit: number): Promise<DeliveryRow[]> {
    return (
      await this.sql.all('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, id DESC LIMIT ?', [
        webhookId,
        limit,
      ])
    ).map(toDelivery);
  }

  async delivery(id: string): Promise<DeliveryRow | undefined> {
    const r = (await this.sql.all('SELECT * FROM webhook_deliveries WHERE id = ?', [id]))[0];
    return r === undefined ? undefined : toDelivery(r);
  }

  async attempts(deliveryId: string): Promise<AttemptRow[]> {
    return (await this.sql.all('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt', [deliveryId])).map(toAttempt);
  }

  async due(now: string, limit: number): Promise<DeliveryRow[]> {
    return (
      await this.sql.all(
        `SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
      ORDER BY next_attempt_at LIMIT ?`,
        [now, limit],
      )
    ).map(toDelivery);
  }

  async claim(id: string, seen: string, leaseUntil: string): Promise<boolean> {
    return (
      (await this.sql.run(`UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`, [
        leaseUntil,
        id,
        seen,
      ])) === 1
    );
  }

  async recordAttempt(a: AttemptRow, o: AttemptOutcome): Promise<void> {
    await this.sql.run('INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)', [
      a.deliveryId,
      a.attempt,
      a.at,
      a.status,
      a.error,
      a.durationMs,
    ]);
    await this.sql.run(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_error = ?,
      delivered_at = ? WHERE id = ?`,
      [o.status, a.attempt, o.nextAttemptAt, a.status, a.error, o.deliveredAt, a.deliveryId],
    );
  }
}
