// Schema migrations, applied in order at start-up; each runs once, inside a transaction.
// Append only: never edit a migration that has shipped.
// Money columns are INTEGER nano-USD (see money/money.ts); times are ISO 8601 UTC text.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

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
];
