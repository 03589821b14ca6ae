// Schema migrations, applied in order at start-up; each runs once, inside a transaction.
// Append only: never edit a migration that has shipped.
// Money columns are INTEGER nano-USD (see money/money.ts); times are ISO 8601 UTC text, except in
// generation_records (Unix ms: see generation-row.ts).

import { BYOK_SQLITE } from './byok-migration.ts';
import { COMPACT_RECORDS_SQLITE } from './compact-records-migration.ts';
import { GUARDRAIL_HITS_SQLITE } from './guardrail-hits-migration.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migration that adds the audit log's hash chain: its runner chains the rows already there. */
export const AUDIT_CHAIN_MIGRATION = 12;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, ledger, generations',
    sql: `
      CREATE TABLE accounts (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        account_type  TEXT NOT NULL CHECK (account_type IN ('user', 'organization')),
        tier          TEXT NOT NULL DEFAULT 'free',
        default_model TEXT,
        balance_nanos INTEGER NOT NULL DEFAULT 0,
        is_active     INTEGER NOT NULL DEFAULT 1,
        created_at    TEXT NOT NULL
      );

      CREATE TABLE api_keys (
        hash          TEXT PRIMARY KEY,          -- sha256 of the key; the key itself is never stored
        account_id    TEXT NOT NULL REFERENCES accounts(id),
        name          TEXT NOT NULL,
        label         TEXT NOT NULL,             -- recognizable prefix and suffix, e.g. sk-sy-v1-3f9...c1a
        limit_nanos   INTEGER,                   -- NULL: no limit of its own
        usage_nanos   INTEGER NOT NULL DEFAULT 0,
        is_active     INTEGER NOT NULL DEFAULT 1,
        is_management INTEGER NOT NULL DEFAULT 0,
        expires_at    TEXT,
        created_at    TEXT NOT NULL,
        last_used     TEXT
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);

      -- Every change of a balance is a row here: the balance is their sum.
      CREATE TABLE ledger (
        id            INTEGER PRIMARY KEY,
        account_id    TEXT NOT NULL REFERENCES accounts(id),
        key_hash      TEXT,
        kind          TEXT NOT NULL CHECK (kind IN ('credit', 'charge', 'adjustment')),
        amount_nanos  INTEGER NOT NULL,          -- credits positive, charges negative
        generation_id TEXT,
        note          TEXT,
        created_at    TEXT NOT NULL
      );
      CREATE INDEX ledger_account ON ledger(account_id, id);
      CREATE UNIQUE INDEX ledger_generation ON ledger(generation_id) WHERE generation_id IS NOT NULL;

      CREATE TABLE generations (
        id                   TEXT PRIMARY KEY,
        account_id           TEXT NOT NULL,
        key_hash             TEXT NOT NULL,
        model                TEXT,
        provider             TEXT,
        upstream_model       TEXT,
        upstream_id          TEXT,
        endpoint_dialect     TEXT NOT NULL,       -- which API the client used: chat, messages, responses
        streamed             INTEGER NOT NULL,
        cancelled            INTEGER NOT NULL DEFAULT 0,
        status               TEXT NOT NULL,       -- success | error
        error_code           TEXT,
        finish_reason        TEXT,
        native_finish_reason TEXT,
        tokens_prompt        INTEGER NOT NULL DEFAULT 0,
        tokens_completion    INTEGER NOT NULL DEFAULT 0,
        tokens_cache_read    INTEGER NOT NULL DEFAULT 0,
        tokens_cache_write   INTEGER NOT NULL DEFAULT 0,
        tokens_reasoning     INTEGER NOT NULL DEFAULT 0,
        cost_nanos           INTEGER NOT NULL DEFAULT 0,
        cost_breakdown       TEXT,                -- JSON: {prompt, completion, cache_read, cache_write, request} in USD decimal text
        latency_ms           INTEGER,
        first_token_ms       INTEGER,
        attempts             TEXT,                -- JSON array of {provider, endpoint, status, error_code, ms}
        http_referer         TEXT,
        x_title              TEXT,
        end_user             TEXT,
        created_at           TEXT NOT NULL
      );
      CREATE INDEX generations_key_created ON generations(key_hash, created_at);
    `,
  },
  {
    version: 2,
    name: 'credit holds, key management, tier overrides',
    sql: `
      -- Per-account rate-limit overrides (JSON, same fields as a tier), for enterprise contracts.
      ALTER TABLE accounts ADD COLUMN limits_override TEXT;
      ALTER TABLE api_keys ADD COLUMN updated_at TEXT;

      -- Credit holds of requests in flight, written lazily (group commit) so that holds left by
      -- a process that died can be found and released at the next start.
      CREATE TABLE reservations (
        id            TEXT PRIMARY KEY,          -- the generation id
        account_id    TEXT NOT NULL REFERENCES accounts(id),
        key_hash      TEXT NOT NULL,
        amount_nanos  INTEGER NOT NULL,
        created_at    TEXT NOT NULL,
        expires_at    TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'who disabled a key',
    sql: `
      -- 'operator' (revoked from the CLI: final for the account) or 'account' (disabled through
      -- the key-management API: the account may enable it again); NULL while the key is active.
      ALTER TABLE api_keys ADD COLUMN disabled_by TEXT CHECK (disabled_by IN ('operator', 'account'));
      -- Who disabled the keys already disabled is unknown: count them as the operator's (fail safe).
      UPDATE api_keys SET disabled_by = 'operator' WHERE is_active = 0;
    `,
  },
  {
    version: 4,
    name: 'admin keys, admin audit log, daily usage rollups, generation list indexes',
    sql: `
      -- Admin keys: global operator keys for /api/v1/admin (they cannot call models).
      ALTER TABLE api_keys ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;

      -- Every admin action: who (key hash, label, account), what, on what, when. Never a secret.
      CREATE TABLE admin_actions (
        id               INTEGER PRIMARY KEY,
        at               TEXT NOT NULL,
        actor_key_hash   TEXT NOT NULL,
        actor_label      TEXT NOT NULL,
        actor_account_id TEXT NOT NULL,
        action           TEXT NOT NULL,
        target           TEXT,
        details          TEXT            -- JSON
      );

      -- Usage per UTC day × account × key × model × provider × app title, moved in the
      -- settlement transaction: charts read these, never the raw generation rows.
      -- Absent model/provider/title are stored as '' (primary key columns cannot be NULL).
      -- Records of the stale-hold sweep ('interrupted', nothing charged) are not counted.
      CREATE TABLE usage_daily (
        account_id         TEXT NOT NULL,
        day                TEXT NOT NULL,
        key_hash           TEXT NOT NULL,
        model              TEXT NOT NULL,
        provider           TEXT NOT NULL,
        app_title          TEXT NOT NULL,
        requests           INTEGER NOT NULL,
        errors             INTEGER NOT NULL,
        tokens_prompt      INTEGER NOT NULL,
        tokens_completion  INTEGER NOT NULL,
        tokens_cache_read  INTEGER NOT NULL,
        tokens_cache_write INTEGER NOT NULL,
        tokens_reasoning   INTEGER NOT NULL,
        cost_nanos         INTEGER NOT NULL,
        latency_ms_sum     INTEGER NOT NULL,
        latency_count      INTEGER NOT NULL,
        PRIMARY KEY (account_id, day, key_hash, model, provider, app_title)   -- one account's days: a range of the table
      ) WITHOUT ROWID;
      -- Coarser rollups for the all-accounts views, so that a 30-day chart over every
      -- account reads a few thousand rows: per day × model × provider × app title, and per
      -- day × account × key. Same columns of figures, moved in the same transactions.
      CREATE TABLE usage_daily_global (
        day TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL, app_title TEXT NOT NULL,
        requests INTEGER NOT NULL, errors INTEGER NOT NULL, tokens_prompt INTEGER NOT NULL, tokens_completion INTEGER NOT NULL,
        tokens_cache_read INTEGER NOT NULL, tokens_cache_write INTEGER NOT NULL, tokens_reasoning INTEGER NOT NULL,
        cost_nanos INTEGER NOT NULL, latency_ms_sum INTEGER NOT NULL, latency_count INTEGER NOT NULL,
        PRIMARY KEY (day, model, provider, app_title)
      ) WITHOUT ROWID;
      CREATE TABLE usage_daily_keys (
        day TEXT NOT NULL, account_id TEXT NOT NULL, key_hash TEXT NOT NULL,
        requests INTEGER NOT NULL, errors INTEGER NOT NULL, tokens_prompt INTEGER NOT NULL, tokens_completion INTEGER NOT NULL,
        tokens_cache_read INTEGER NOT NULL, tokens_cache_write INTEGER NOT NULL, tokens_reasoning INTEGER NOT NULL,
        cost_nanos INTEGER NOT NULL, latency_ms_sum INTEGER NOT NULL, latency_count INTEGER NOT NULL,
        PRIMARY KEY (day, account_id, key_hash)
      ) WITHOUT ROWID;
      INSERT INTO usage_daily (day, account_id, key_hash, model, provider, app_title, requests, errors, tokens_prompt,
          tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos, latency_ms_sum, latency_count)
        SELECT substr(created_at, 1, 10), account_id, key_hash, coalesce(model, ''), coalesce(provider, ''), coalesce(x_title, ''),
          count(*), sum(status = 'error'), sum(tokens_prompt), sum(tokens_completion), sum(tokens_cache_read),
          sum(tokens_cache_write), sum(tokens_reasoning), sum(cost_nanos), coalesce(sum(latency_ms), 0), count(latency_ms)
        FROM generations WHERE error_code IS NOT 'interrupted'
        GROUP BY 1, 2, 3, 4, 5, 6;
      INSERT INTO usage_daily_global SELECT day, model, provider, app_title, sum(requests), sum(errors), sum(tokens_prompt),
          sum(tokens_completion), sum(tokens_cache_read), sum(tokens_cache_write), sum(tokens_reasoning), sum(cost_nanos),
          sum(latency_ms_sum), sum(latency_count)
        FROM usage_daily GROUP BY 1, 2, 3, 4;
      INSERT INTO usage_daily_keys SELECT day, account_id, key_hash, sum(requests), sum(errors), sum(tokens_prompt),
          sum(tokens_completion), sum(tokens_cache_read), sum(tokens_cache_write), sum(tokens_reasoning), sum(cost_nanos),
          sum(latency_ms_sum), sum(latency_count)
        FROM usage_daily GROUP BY 1, 2, 3;

      -- The generation list, newest first, keyset on (created_at, id): all accounts, or one
      -- account (key filters use generations_key_created), or one model (a rarely used model
      -- would otherwise mean walking every record). Provider and status filter the rows these
      -- indexes walk (no index of their own: each index costs insert time on settlement).
      CREATE INDEX generations_created ON generations(created_at, id);
      CREATE INDEX generations_account_created ON generations(account_id, created_at, id);
      CREATE INDEX generations_model_created ON generations(model, created_at, id);
    `,
  },
  {
    version: 5,
    name: 'dashboard sessions',
    sql: `
      -- A dashboard session: a management or admin key exchanged for a cookie. Only the
      -- SHA-256 of the 256-bit session id is stored. The session acts as its key: the key's
      -- state (disabled, deleted, expired) is checked on every use.
      CREATE TABLE dashboard_sessions (
        id_hash     TEXT PRIMARY KEY,
        key_hash    TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        revoked_at  TEXT
      );
      CREATE INDEX dashboard_sessions_key ON dashboard_sessions(key_hash);
      -- Disabling or deleting a key ends its sessions for good, whoever does it (the API, the
      -- admin API, the CLI in another process): enabling the key again does not revive them.
      CREATE TRIGGER dashboard_sessions_end_on_key_disable AFTER UPDATE OF is_active ON api_keys
        WHEN NEW.is_active = 0 AND OLD.is_active = 1
        BEGIN
          UPDATE dashboard_sessions SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE key_hash = NEW.hash AND revoked_at IS NULL;
        END;
      CREATE TRIGGER dashboard_sessions_end_on_key_delete AFTER DELETE ON api_keys
        BEGIN
          UPDATE dashboard_sessions SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE key_hash = OLD.hash AND revoked_at IS NULL;
        END;
    `,
  },
  {
    version: 6,
    name: 'key limit reset period',
    sql: `
      -- A key's credit limit may reset: 'daily' (00:00 UTC), 'weekly' (Monday 00:00 UTC) or
      -- 'monthly' (the 1st, 00:00 UTC); the limit then caps the usage since the period began
      -- (summed from usage_daily_keys). NULL: the limit caps the key's whole usage.
      ALTER TABLE api_keys ADD COLUMN limit_reset TEXT CHECK (limit_reset IN ('daily', 'weekly', 'monthly'));
    `,
  },
  {
    version: 7,
    name: 'response cache hits',
    sql: `
      -- 1: the answer came from the response cache (no upstream call), billed per cache.hit_price.
      ALTER TABLE generations ADD COLUMN cache_hit INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 8,
    name: 'refusal counts',
    sql: `
      -- Requests refused at admission (rate limits, credits, unknown models...) are counted
      -- here, not stored one generation record each: one row per key × UTC minute × reason
      -- (an error code of the catalogue, never a client's string), moved in the settlement
      -- transactions; rows older than 7 days are pruned as new counts are written.
      CREATE TABLE refusal_counts (
        key_hash   TEXT NOT NULL,
        minute     TEXT NOT NULL,               -- YYYY-MM-DDTHH:MM, UTC
        reason     TEXT NOT NULL,
        account_id TEXT NOT NULL,
        count      INTEGER NOT NULL,
        PRIMARY KEY (key_hash, minute, reason)
      ) WITHOUT ROWID;
      CREATE INDEX refusal_counts_minute ON refusal_counts(minute);
      CREATE INDEX refusal_counts_account ON refusal_counts(account_id, minute);
    `,
  },
  {
    version: 9,
    name: 'key and session list indexes',
    sql: `
      -- Keys are listed in pages (created_at, hash): one account's, or every account's.
      CREATE INDEX api_keys_account_created ON api_keys(account_id, created_at, hash);
      CREATE INDEX api_keys_created ON api_keys(created_at, hash);
      -- Sessions: a key's live ones, oldest first (at most 20 a key), and the expired ones pruned.
      DROP INDEX dashboard_sessions_key;
      CREATE INDEX dashboard_sessions_key_created ON dashboard_sessions(key_hash, created_at);
      CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);
    `,
  },
  {
    version: 10,
    name: 'playground keys',
    sql: `
      -- 1: an API key the dashboard's playground made for itself (short-lived, limited); the
      -- playground removes only keys with this mark, never a key an account made.
      ALTER TABLE api_keys ADD COLUMN is_playground INTEGER NOT NULL DEFAULT 0;
    `,
  },
  COMPACT_RECORDS_SQLITE,
  {
    version: 12,
    name: 'audit log hash chain',
    sql: `
      -- Each admin action carries the hash of the one before it (prev_hash) and its own
      -- (entry_hash: SHA-256 over the row and prev_hash, see audit-chain.ts). The rows already
      -- there are chained in id order by the code that runs this migration, in its transaction.
      ALTER TABLE admin_actions ADD COLUMN prev_hash TEXT;
      ALTER TABLE admin_actions ADD COLUMN entry_hash TEXT;
    `,
  },
  {
    version: 13,
    name: 'webhooks and their delivery outbox',
    sql: `
      -- An account's webhook endpoints. The secret signs deliveries (HMAC-SHA256), so it is kept
      -- as given: the gateway has no master key to encrypt it with (docs/security.md).
      CREATE TABLE webhooks (
        id          TEXT NOT NULL PRIMARY KEY,   -- wh_...
        account_id  TEXT NOT NULL REFERENCES accounts(id),
        url         TEXT NOT NULL,
        events      TEXT NOT NULL,               -- JSON array of event types
        secret      TEXT NOT NULL,
        created_at  TEXT NOT NULL
      );
      CREATE INDEX webhooks_account ON webhooks(account_id, created_at);

      -- The outbox: one row per event and endpoint, sent by the delivery loop off the request
      -- path, retried with backoff until delivered or max attempts ('failed').
      CREATE TABLE webhook_deliveries (
        id              TEXT NOT NULL PRIMARY KEY, -- whd_...
        webhook_id      TEXT NOT NULL,
        account_id      TEXT NOT NULL,
        event_id        TEXT NOT NULL,           -- evt_... (a replay sends the same event again)
        event_type      TEXT NOT NULL,
        body            TEXT NOT NULL,           -- the JSON body sent, byte for byte
        status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT,                    -- when pending: due then (a claim moves it on)
        last_status     INTEGER,                   -- the last attempt's HTTP status; NULL: no answer
        last_error      TEXT,
        created_at      TEXT NOT NULL,
        delivered_at    TEXT
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
      CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, created_at);

      -- Each attempt's outcome.
      CREATE TABLE webhook_attempts (
        delivery_id  TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        at           TEXT NOT NULL,
        status       INTEGER,                      -- HTTP status; NULL: no answer (error says why)
        error        TEXT,
        duration_ms  INTEGER NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );
    `,
  },
  {
    version: 14,
    name: "allowlists on accounts and keys, a key's cap on concurrent requests, accounts' guardrails",
    sql: `
      -- What a key may reach (catalog/model-access.ts): JSON {models?, providers?, maxPrice?}; NULL: no list.
      ALTER TABLE accounts ADD COLUMN allowlist TEXT;
      -- The account's guardrails (moderation/guardrails.ts): JSON [{detector, action, pattern?, name?}]; NULL: none.
      ALTER TABLE accounts ADD COLUMN guardrails TEXT;
      ALTER TABLE api_keys ADD COLUMN allowlist TEXT;
      -- Requests of the key in flight at once; NULL: no cap.
      ALTER TABLE api_keys ADD COLUMN max_in_flight INTEGER;
    `,
  },
  {
    version: 15,
    name: 'members and roles, email sign-in links',
    sql: `
      -- An account's people (docs/governance.md): one row per email (unique per account,
      -- case-insensitive: email_lower), with a role. allowed_models (JSON array) and the
      -- budget are stored here and enforced by the allowlist and budget parts.
      CREATE TABLE members (
        id            TEXT NOT NULL PRIMARY KEY,   -- mem_...
        account_id    TEXT NOT NULL REFERENCES accounts(id),
        email         TEXT NOT NULL,
        email_lower   TEXT NOT NULL,
        name          TEXT NOT NULL,
        role          TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
        allowed_models TEXT,
        budget_nanos  INTEGER,
        budget_reset  TEXT,
        created_at    TEXT NOT NULL,
        updated_at    TEXT
      );
      CREATE UNIQUE INDEX members_account_email ON members(account_id, email_lower);
      CREATE INDEX members_email ON members(email_lower);

      -- A key may belong to a member (their own keys; usage filtered by member).
      ALTER TABLE api_keys ADD COLUMN member_id TEXT;
      CREATE INDEX api_keys_member ON api_keys(member_id);

      -- A session made by a member's sign-in (an emailed link, SSO) names the member; its
      -- key_hash is then 'member:<id>' (no key). Removing the member ends them.
      ALTER TABLE dashboard_sessions ADD COLUMN member_id TEXT;
      CREATE INDEX dashboard_sessions_member ON dashboard_sessions(member_id);

      -- One-time sign-in links: only the SHA-256 of the token is kept; used once, short-lived.
      CREATE TABLE sign_in_links (
        token_hash  TEXT NOT NULL PRIMARY KEY,
        member_id   TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        used_at     TEXT
      );
      CREATE INDEX sign_in_links_expiry ON sign_in_links(expires_at);
    `,
  },
  BYOK_SQLITE,
  {
    version: 17,
    name: 'key rotation: the current and previous secret of a key',
    sql: `
      -- A rotated key keeps its record (hash: the id the API uses, its usage, limits, label)
      -- and gets a new secret: secret_hash is the SHA-256 of the secret in force (NULL: the
      -- key was never rotated, its secret is the one whose hash is \`hash\`). The secret it
      -- replaced keeps working until previous_secret_expires_at (ISO time), then never again.
      ALTER TABLE api_keys ADD COLUMN secret_hash TEXT;
      ALTER TABLE api_keys ADD COLUMN previous_secret_hash TEXT;
      ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at TEXT;
      CREATE UNIQUE INDEX api_keys_secret_hash ON api_keys(secret_hash) WHERE secret_hash IS NOT NULL;
      CREATE INDEX api_keys_previous_secret_hash ON api_keys(previous_secret_hash) WHERE previous_secret_hash IS NOT NULL;
    `,
  },
  {
    version: 18,
    name: "MCP tool loop: a turn's parent generation and the MCP calls it was given",
    sql: `
      -- A later model turn of a request that runs MCP tools (docs/tools.md) names the first
      -- turn's generation, and lists the MCP calls whose results it was given (JSON:
      -- [{server, tool, ms, status}], never arguments nor results). NULL for every other record.
      ALTER TABLE generation_records ADD COLUMN parent_id TEXT;
      ALTER TABLE generation_records ADD COLUMN tool_calls TEXT;
      DROP VIEW generations;
  CREATE VIEW generations AS SELECT
    g.seq, g.created_ms, g.account_ref, g.key_ref, g.model_ref, g.provider_ref, g.is_error,
    g.id, a.name AS account_id, k.name AS key_hash, m.name AS model, p.name AS provider, um.name AS upstream_model,
    g.upstream_id, coalesce(d.name, '') AS endpoint_dialect, g.streamed, g.cancelled,
    CASE g.is_error WHEN 0 THEN 'success' ELSE 'error' END AS status,
    ec.name AS error_code, fr.name AS finish_reason, nfr.name AS native_finish_reason,
    g.tokens_prompt, g.tokens_completion, g.tokens_cache_read, g.tokens_cache_write, g.tokens_reasoning,
    g.cost_nanos, g.cost_breakdown, g.latency_ms, g.first_token_ms,
    CASE WHEN g.attempts IS NOT NULL THEN g.attempts
      WHEN g.endpoint_ref IS NOT NULL THEN json_array(json_object('model', m.name, 'provider', p.name, 'endpoint', e.name,
        'status', 200, 'errorCode', NULL, 'ms', g.upstream_ms))
      ELSE '[]' END AS attempts,
    CASE WHEN g.attempts IS NOT NULL THEN json_array_length(g.attempts) WHEN g.endpoint_ref IS NOT NULL THEN 1 ELSE 0 END AS attempt_count,
    hr.name AS http_referer, t.name AS x_title, g.end_user,
    strftime('%Y-%m-%dT%H:%M:%S', g.created_ms / 1000, 'unixepoch') || printf('.%03dZ', g.created_ms % 1000) AS created_at,
    g.cache_hit, g.byok, g.parent_id, g.tool_calls
  FROM generation_records g
    JOIN record_names a ON a.id = g.account_ref
    JOIN record_names k ON k.id = g.key_ref
    LEFT JOIN record_names m ON m.id = g.model_ref
    LEFT JOIN record_names p ON p.id = g.provider_ref
    LEFT JOIN record_names um ON um.id = g.upstream_model_ref
    LEFT JOIN record_names d ON d.id = g.dialect_ref
    LEFT JOIN record_names ec ON ec.id = g.error_code_ref
    LEFT JOIN record_names fr ON fr.id = g.finish_reason_ref
    LEFT JOIN record_names nfr ON nfr.id = g.native_finish_reason_ref
    LEFT JOIN record_names e ON e.id = g.endpoint_ref
    LEFT JOIN record_names hr ON hr.id = g.http_referer_ref
    LEFT JOIN record_names t ON t.id = g.app_title_ref;
;
    `,
  },
  {
    version: 19,
    name: 'account budgets and threshold alerts',
    sql: `
      -- An account's budget: at most budget_nanos spent per window ('daily', 'weekly',
      -- 'monthly' UTC, as a key's limit_reset; NULL: over the account's whole usage), summed
      -- from usage_daily_keys. NULL budget_nanos: none. budget_alert_thresholds: a JSON array
      -- of percentages (NULL: the configured alerts.thresholds).
      ALTER TABLE accounts ADD COLUMN budget_nanos INTEGER;
      ALTER TABLE accounts ADD COLUMN budget_reset TEXT CHECK (budget_reset IN ('daily', 'weekly', 'monthly'));
      ALTER TABLE accounts ADD COLUMN budget_alert_thresholds TEXT;
      -- One row per alert sent: the instance whose insert wins sends budget.threshold, so an
      -- alert fires once per (scope, subject, window, threshold) across a fleet.
      CREATE TABLE budget_alerts (
        scope        TEXT NOT NULL,              -- 'account' | 'member' | 'key'
        subject_id   TEXT NOT NULL,              -- the account id, member id or key hash
        window_start TEXT NOT NULL,              -- ISO; '' for a budget without a window
        threshold    INTEGER NOT NULL,           -- percent
        account_id   TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        PRIMARY KEY (scope, subject_id, window_start, threshold)
      );
    `,
  },
  {
    version: 20,
    name: 'account MCP servers and MCP tool calls',
    sql: `
      -- An account's own MCP servers (management API, docs/mcp-endpoint.md). The headers (its
      -- tokens) are sent to the server and never answered back; kept as given, like webhook
      -- secrets: the gateway has no master key to encrypt them with (docs/security.md).
      CREATE TABLE account_mcp_servers (
        id          TEXT NOT NULL PRIMARY KEY,   -- mcps_...
        account_id  TEXT NOT NULL REFERENCES accounts(id),
        name        TEXT NOT NULL,
        url         TEXT NOT NULL,
        headers     TEXT NOT NULL,               -- JSON object: header name -> value
        tools       TEXT,                        -- JSON array of the tools exposed; NULL: all
        created_at  TEXT NOT NULL,
        UNIQUE (account_id, name)
      );

      -- One row per MCP tool call the gateway made for a key (server, tool, how long, how it
      -- ended; never the arguments or the result), newest read first.
      CREATE TABLE mcp_tool_calls (
        id          TEXT NOT NULL PRIMARY KEY,   -- mcpc_...
        at          TEXT NOT NULL,
        account_id  TEXT NOT NULL,
        key_hash    TEXT NOT NULL,
        server      TEXT,                        -- NULL: the tool named no server the key may use
        tool        TEXT NOT NULL,
        via         TEXT NOT NULL,               -- 'endpoint' (/mcp) or 'generation' (a model's turn)
        status      TEXT NOT NULL CHECK (status IN ('ok', 'tool_error', 'failed', 'refused')),
        duration_ms INTEGER NOT NULL,
        error       TEXT,                        -- why, for failed and refused (bounded)
        generation_id TEXT
      );
      CREATE INDEX mcp_tool_calls_at ON mcp_tool_calls(at, id);
      CREATE INDEX mcp_tool_calls_account ON mcp_tool_calls(account_id, at, id);
    `,
  },
  {
    version: 21,
    name: 'credit holds without rowid',
    sql: `
      -- Each request inserts and deletes one hold row. Keyed by its TEXT id in a rowid table,
      -- that is two b-trees (the rows and the id's index) written each time; WITHOUT ROWID
      -- keeps the row in the id's b-tree alone: 1,643 WAL bytes a hold instead of 2,943, and
      -- 1.5 µs less of the writer's time (docs/benchmarks.md, "Sixth round").
      CREATE TABLE reservations_by_id (
        id            TEXT NOT NULL PRIMARY KEY, -- the generation id
        account_id    TEXT NOT NULL REFERENCES accounts(id),
        key_hash      TEXT NOT NULL,
        amount_nanos  INTEGER NOT NULL,
        created_at    TEXT NOT NULL,
        expires_at    TEXT NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO reservations_by_id (id, account_id, key_hash, amount_nanos, created_at, expires_at)
        SELECT id, account_id, key_hash, amount_nanos, created_at, expires_at FROM reservations;
      DROP TABLE reservations;
      ALTER TABLE reservations_by_id RENAME TO reservations;
    `,
  },
  {
    version: 22,
    name: 'single sign-on: sign-ins in progress, members removed',
    sql: `
      -- An OpenID Connect sign-in between its start and the provider's callback: the state's
      -- SHA-256, the nonce and the PKCE verifier, kept here (not in the browser) and taken
      -- once by the callback, so a replayed state is refused on every instance of a fleet.
      CREATE TABLE sso_logins (
        state_hash    TEXT NOT NULL PRIMARY KEY,
        nonce         TEXT NOT NULL,
        code_verifier TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        expires_at    TEXT NOT NULL
      );
      CREATE INDEX sso_logins_expiry ON sso_logins(expires_at);

      -- A member removed from an account: single sign-on does not create them again on their
      -- next sign-in (an admin adding them back clears the row).
      CREATE TABLE removed_members (
        account_id  TEXT NOT NULL,
        email       TEXT NOT NULL,               -- lower case
        removed_at  TEXT NOT NULL,
        PRIMARY KEY (account_id, email)
      );
    `,
  },
  {
    version: 23,
    name: 'member budgets: the tables their alerts and deliveries grow pruned by age',
    sql: `
      -- Member budgets are enforced from the members' budget columns (migration 15) with the
      -- account's (billing/budgets.ts); what grows with them, budget_alerts and the webhook
      -- deliveries that carry the alerts, is pruned by age in small batches
      -- (server/governance-retention.ts): the indexes those batches walk.
      CREATE INDEX budget_alerts_created ON budget_alerts(created_at);
      CREATE INDEX webhook_deliveries_created ON webhook_deliveries(created_at, id);
    `,
  },
  {
    version: 24,
    name: 'webhook signing secrets sealed at rest',
    sql: `
      -- A webhook's signing secret is sealed (AES-256-GCM envelope encryption, the BYOK keys'
      -- code: auth/byok-cipher.ts): secret holds its ciphertext, secret_key its data key sealed
      -- by the key secret_master_key_id names (byok.master_key, else the gateway's local key
      -- file; server/webhooks/webhook-secrets.ts). A row with NULL secret_key still holds its
      -- secret in clear: the gateway seals it when it starts, before serving (a migration has
      -- no key to seal with), and a secret is never written in clear again.
      ALTER TABLE webhooks ADD COLUMN secret_key TEXT;
      ALTER TABLE webhooks ADD COLUMN secret_master_key_id TEXT;
    `,
  },
  GUARDRAIL_HITS_SQLITE,
  {
    version: 27,
    name: "the settlement writes fewer pages: no unique index of a charge's generation id",
    sql: `
      -- The settlement's pages (docs/benchmarks.md, "Seventh round: the writer's pages"): a
      -- charge's ledger row no longer carries a unique index of its generation id. Its keys are
      -- random (gen-<seconds>-<random>), so each charge dirtied a leaf of its own: 1.2 of a
      -- one-record settlement's 16 WAL frames, 0.6 of 3.6 a record in batches of 8. A charge is
      -- written only in the transaction that writes its generation record (ledger-store.ts,
      -- postgres-settlement.ts), whose id is unique: one charge per generation still holds, and
      -- "was it charged" is read from generation_records by id (a charged record has a cost).
      DROP INDEX ledger_generation;
    `,
  },
];
