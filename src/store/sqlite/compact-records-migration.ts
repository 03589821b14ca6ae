import type { Migration } from './migrations.ts';

// Migration 11 (SQLite): generation records at a few hundred bytes each instead of ~2.8 KB
// (bench/records-size.ts measures both). The layout and its reasons are in generation-row.ts;
// postgres/compact-records-migration.ts is the same for Postgres.
//
// - `record_names`: each repeated string once (account ids, key hashes, models, providers,
//   app titles, error codes...); records hold its integer id. Names are never deleted.
// - `generation_records`: `seq` is the rowid, so every index ends with it for free; the list
//   is newest first on (created_ms, seq). Indexes: id (lookups and the settlement's upsert),
//   time (all accounts; pruning), account (then time, and the Activity filters model,
//   provider and status, checked in the index), key and model, each then time.
// - `generations`: a view with the old table's columns (names, ISO times, JSON), for reading
//   as before; the list queries filter and order on the view's stored columns (seq,
//   created_ms, *_ref), which SQLite pushes down to the table's indexes.
// - `accounts.retention_days`: the account's own retention of records (records-retention.ts).

/**
 * The view as migration 11 creates it. A later migration that adds a column to
 * generation_records writes its own `DROP VIEW generations; CREATE VIEW generations AS …`
 * (a shipped migration never changes, so it does not reuse this constant).
 */
export const GENERATIONS_VIEW_SQLITE = `
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
    g.cache_hit
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
`;

export const COMPACT_RECORDS_SQLITE: Migration = {
  version: 11,
  name: 'compact generation records, record names, retention per account',
  sql: `
    CREATE TABLE record_names (
      id   INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE
    );

    CREATE TABLE generation_records (
      seq                      INTEGER PRIMARY KEY,
      id                       TEXT NOT NULL,            -- the public id (gen-…)
      created_ms               INTEGER NOT NULL,         -- Unix ms, UTC
      account_ref              INTEGER NOT NULL,         -- *_ref: record_names.id
      key_ref                  INTEGER NOT NULL,
      model_ref                INTEGER,
      provider_ref             INTEGER,
      upstream_model_ref       INTEGER,
      upstream_id              TEXT,
      dialect_ref              INTEGER,
      streamed                 INTEGER NOT NULL,
      cancelled                INTEGER NOT NULL,
      cache_hit                INTEGER NOT NULL,
      is_error                 INTEGER NOT NULL,         -- 0 success, 1 error
      error_code_ref           INTEGER,
      finish_reason_ref        INTEGER,
      native_finish_reason_ref INTEGER,
      tokens_prompt            INTEGER NOT NULL,
      tokens_completion        INTEGER NOT NULL,
      tokens_cache_read        INTEGER NOT NULL,
      tokens_cache_write       INTEGER NOT NULL,
      tokens_reasoning         INTEGER NOT NULL,
      cost_nanos               INTEGER NOT NULL,
      cost_breakdown           TEXT,                     -- JSON array of the line items (generation-row.ts), or an object
      latency_ms               INTEGER,
      first_token_ms           INTEGER,
      endpoint_ref             INTEGER,                  -- the one attempt (200, the record's model and provider): endpoint
      upstream_ms              INTEGER,                  -- and its duration
      attempts                 TEXT,                     -- JSON, only for several attempts or a failed one
      http_referer_ref         INTEGER,
      app_title_ref            INTEGER,
      end_user                 TEXT
    );

    INSERT OR IGNORE INTO record_names (name)
      SELECT account_id FROM generations UNION SELECT key_hash FROM generations UNION SELECT model FROM generations
      UNION SELECT provider FROM generations UNION SELECT upstream_model FROM generations UNION SELECT endpoint_dialect FROM generations
      UNION SELECT error_code FROM generations UNION SELECT finish_reason FROM generations
      UNION SELECT native_finish_reason FROM generations UNION SELECT http_referer FROM generations UNION SELECT x_title FROM generations
      UNION SELECT json_extract(attempts, '$[0].endpoint') FROM generations WHERE json_valid(attempts) AND json_array_length(attempts) = 1;
    DELETE FROM record_names WHERE name IS NULL;

    CREATE TEMP TABLE one_attempt AS SELECT id,
        json_extract(attempts, '$[0].endpoint') AS endpoint, json_extract(attempts, '$[0].ms') AS ms
      FROM generations
      WHERE json_valid(attempts) AND json_array_length(attempts) = 1
        AND (SELECT group_concat(key) FROM json_each(attempts, '$[0]')) = 'model,provider,endpoint,status,errorCode,ms'
        AND json_extract(attempts, '$[0].status') = 200 AND json_type(attempts, '$[0].errorCode') = 'null'
        AND json_extract(attempts, '$[0].model') IS model AND json_extract(attempts, '$[0].provider') IS provider
        AND json_type(attempts, '$[0].endpoint') = 'text' AND json_type(attempts, '$[0].ms') = 'integer';

    INSERT INTO generation_records (id, created_ms, account_ref, key_ref, model_ref, provider_ref, upstream_model_ref, upstream_id,
        dialect_ref, streamed, cancelled, cache_hit, is_error, error_code_ref, finish_reason_ref, native_finish_reason_ref,
        tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos, cost_breakdown,
        latency_ms, first_token_ms, endpoint_ref, upstream_ms, attempts, http_referer_ref, app_title_ref, end_user)
      SELECT g.id, CAST(round(unixepoch(g.created_at, 'subsec') * 1000) AS INTEGER),
        (SELECT id FROM record_names WHERE name = g.account_id), (SELECT id FROM record_names WHERE name = g.key_hash),
        (SELECT id FROM record_names WHERE name = g.model), (SELECT id FROM record_names WHERE name = g.provider),
        (SELECT id FROM record_names WHERE name = g.upstream_model), g.upstream_id,
        (SELECT id FROM record_names WHERE name = g.endpoint_dialect), g.streamed, g.cancelled, g.cache_hit,
        g.status <> 'success', (SELECT id FROM record_names WHERE name = g.error_code),
        (SELECT id FROM record_names WHERE name = g.finish_reason), (SELECT id FROM record_names WHERE name = g.native_finish_reason),
        g.tokens_prompt, g.tokens_completion, g.tokens_cache_read, g.tokens_cache_write, g.tokens_reasoning, g.cost_nanos,
        CASE WHEN json_valid(g.cost_breakdown)
            AND (SELECT group_concat(key) FROM json_each(g.cost_breakdown)) = 'prompt,completion,cache_read,cache_write,request,image'
            AND (SELECT count(*) FROM json_each(g.cost_breakdown) WHERE type <> 'text') = 0
          THEN json_array(json_extract(g.cost_breakdown, '$.prompt'), json_extract(g.cost_breakdown, '$.completion'),
            json_extract(g.cost_breakdown, '$.cache_read'), json_extract(g.cost_breakdown, '$.cache_write'),
            json_extract(g.cost_breakdown, '$.request'), json_extract(g.cost_breakdown, '$.image'))
          ELSE g.cost_breakdown END,
        g.latency_ms, g.first_token_ms, (SELECT id FROM record_names WHERE name = o.endpoint), o.ms,
        CASE WHEN o.id IS NOT NULL OR g.attempts IS NULL OR g.attempts = '[]' THEN NULL ELSE g.attempts END,
        (SELECT id FROM record_names WHERE name = g.http_referer), (SELECT id FROM record_names WHERE name = g.x_title), g.end_user
      FROM generations g LEFT JOIN one_attempt o ON o.id = g.id
      ORDER BY g.created_at, g.id;
    DROP TABLE one_attempt;
    DROP TABLE generations;

    CREATE UNIQUE INDEX generation_records_id ON generation_records(id);
    CREATE INDEX generation_records_created ON generation_records(created_ms);
    -- The Activity page's filters (model, provider, status) ride in the account's index: a
    -- rare combination is found by walking index entries, not by reading each record.
    CREATE INDEX generation_records_account ON generation_records(account_ref, created_ms, model_ref, provider_ref, is_error);
    CREATE INDEX generation_records_key ON generation_records(key_ref, created_ms);
    CREATE INDEX generation_records_model ON generation_records(model_ref, created_ms);
    ${GENERATIONS_VIEW_SQLITE}

    -- Days an account's generation records are kept (NULL: its tier's, else records.retention_days).
    ALTER TABLE accounts ADD COLUMN retention_days INTEGER;
  `,
};
