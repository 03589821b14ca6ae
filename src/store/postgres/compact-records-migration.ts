import type { Migration } from '../sqlite/migrations.ts';

// Migration 11 for Postgres: ../compact-records-migration.ts (SQLite) in Postgres's dialect.
// Differences: identities instead of rowids; the primary key is the text id (the
// settlement's upsert on it) and `seq` has no index of its own, ending the list indexes
// instead; numbers are the narrowest type that holds them (int4 names, tokens and times in
// ms, bigint money and instants, smallint flags), bigints first so no row pads for alignment.
// The view casts them back to BIGINT, so rows read as before (pg-executor.ts: bigint).
//
// Not partitioned by month: a partitioned table's unique indexes must contain the partition
// key, and the settlement's upsert needs `id` unique on its own (a late settlement replaces
// the `interrupted` record its request left, whose time differs). Old records are deleted in
// batches instead (records-retention.ts).

export const GENERATIONS_VIEW_POSTGRES = `
  CREATE VIEW generations AS SELECT
    g.seq, g.created_ms, g.account_ref, g.key_ref, g.model_ref, g.provider_ref, g.is_error,
    g.id, a.name AS account_id, k.name AS key_hash, m.name AS model, p.name AS provider, um.name AS upstream_model,
    g.upstream_id, coalesce(d.name, '') AS endpoint_dialect, g.streamed::bigint AS streamed, g.cancelled::bigint AS cancelled,
    CASE g.is_error WHEN 0 THEN 'success' ELSE 'error' END AS status,
    ec.name AS error_code, fr.name AS finish_reason, nfr.name AS native_finish_reason,
    g.tokens_prompt::bigint AS tokens_prompt, g.tokens_completion::bigint AS tokens_completion,
    g.tokens_cache_read::bigint AS tokens_cache_read, g.tokens_cache_write::bigint AS tokens_cache_write,
    g.tokens_reasoning::bigint AS tokens_reasoning, g.cost_nanos, g.cost_breakdown,
    g.latency_ms::bigint AS latency_ms, g.first_token_ms::bigint AS first_token_ms,
    CASE WHEN g.attempts IS NOT NULL THEN g.attempts
      WHEN g.endpoint_ref IS NOT NULL THEN json_build_array(json_build_object('model', m.name, 'provider', p.name, 'endpoint', e.name,
        'status', 200, 'errorCode', NULL, 'ms', g.upstream_ms))::text
      ELSE '[]' END AS attempts,
    (CASE WHEN g.attempts IS NOT NULL THEN json_array_length(g.attempts::json) WHEN g.endpoint_ref IS NOT NULL THEN 1 ELSE 0 END)::bigint AS attempt_count,
    hr.name AS http_referer, t.name AS x_title, g.end_user,
    to_char(timestamp '1970-01-01' + g.created_ms * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
    g.cache_hit::bigint AS cache_hit
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

const ref = (expr: string) => `(SELECT id FROM record_names WHERE name = ${expr})`;

export const COMPACT_RECORDS_POSTGRES: Migration = {
  version: 11,
  name: 'compact generation records, record names, retention per account',
  sql: `
    CREATE TABLE record_names (
      id   INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name TEXT NOT NULL UNIQUE
    );

    CREATE TABLE generation_records (
      seq                      BIGINT GENERATED ALWAYS AS IDENTITY,
      created_ms               BIGINT NOT NULL,
      cost_nanos               BIGINT NOT NULL,
      account_ref              INTEGER NOT NULL,
      key_ref                  INTEGER NOT NULL,
      model_ref                INTEGER,
      provider_ref             INTEGER,
      upstream_model_ref       INTEGER,
      dialect_ref              INTEGER,
      error_code_ref           INTEGER,
      finish_reason_ref        INTEGER,
      native_finish_reason_ref INTEGER,
      tokens_prompt            INTEGER NOT NULL,
      tokens_completion        INTEGER NOT NULL,
      tokens_cache_read        INTEGER NOT NULL,
      tokens_cache_write       INTEGER NOT NULL,
      tokens_reasoning         INTEGER NOT NULL,
      latency_ms               INTEGER,
      first_token_ms           INTEGER,
      endpoint_ref             INTEGER,
      upstream_ms              INTEGER,
      http_referer_ref         INTEGER,
      app_title_ref            INTEGER,
      streamed                 SMALLINT NOT NULL,
      cancelled                SMALLINT NOT NULL,
      cache_hit                SMALLINT NOT NULL,
      is_error                 SMALLINT NOT NULL,
      id                       TEXT PRIMARY KEY,
      upstream_id              TEXT,
      cost_breakdown           TEXT,
      attempts                 TEXT,
      end_user                 TEXT
    );

    INSERT INTO record_names (name)
      SELECT n FROM (
        SELECT account_id AS n FROM generations UNION SELECT key_hash FROM generations UNION SELECT model FROM generations
        UNION SELECT provider FROM generations UNION SELECT upstream_model FROM generations UNION SELECT endpoint_dialect FROM generations
        UNION SELECT error_code FROM generations UNION SELECT finish_reason FROM generations
        UNION SELECT native_finish_reason FROM generations UNION SELECT http_referer FROM generations UNION SELECT x_title FROM generations
        UNION SELECT attempts::json -> 0 ->> 'endpoint' FROM generations WHERE attempts LIKE '[%' AND json_array_length(attempts::json) = 1
      ) names WHERE n IS NOT NULL
      ON CONFLICT (name) DO NOTHING;

    CREATE TEMP TABLE one_attempt ON COMMIT DROP AS SELECT id, attempts::json -> 0 ->> 'endpoint' AS endpoint, (attempts::json -> 0 ->> 'ms')::integer AS ms
      FROM generations
      WHERE attempts LIKE '[%' AND json_array_length(attempts::json) = 1
        AND (SELECT string_agg(k, ',') FROM json_object_keys(attempts::json -> 0) k) = 'model,provider,endpoint,status,errorCode,ms'
        AND (attempts::json -> 0 ->> 'status') = '200' AND json_typeof(attempts::json -> 0 -> 'errorCode') = 'null'
        AND (attempts::json -> 0 ->> 'model') IS NOT DISTINCT FROM model AND (attempts::json -> 0 ->> 'provider') IS NOT DISTINCT FROM provider
        AND json_typeof(attempts::json -> 0 -> 'endpoint') = 'string' AND (attempts::json -> 0 ->> 'ms') ~ '^[0-9]{1,9}$';

    INSERT INTO generation_records (id, created_ms, account_ref, key_ref, model_ref, provider_ref, upstream_model_ref, upstream_id,
        dialect_ref, streamed, cancelled, cache_hit, is_error, error_code_ref, finish_reason_ref, native_finish_reason_ref,
        tokens_prompt, tokens_completion, tokens_cache_read, tokens_cache_write, tokens_reasoning, cost_nanos, cost_breakdown,
        latency_ms, first_token_ms, endpoint_ref, upstream_ms, attempts, http_referer_ref, app_title_ref, end_user)
      SELECT g.id, round(extract(epoch FROM g.created_at::timestamptz) * 1000)::bigint,
        ${ref('g.account_id')}, ${ref('g.key_hash')}, ${ref('g.model')}, ${ref('g.provider')}, ${ref('g.upstream_model')}, g.upstream_id,
        ${ref('g.endpoint_dialect')}, g.streamed, g.cancelled, g.cache_hit, CASE WHEN g.status = 'success' THEN 0 ELSE 1 END,
        ${ref('g.error_code')}, ${ref('g.finish_reason')}, ${ref('g.native_finish_reason')},
        g.tokens_prompt, g.tokens_completion, g.tokens_cache_read, g.tokens_cache_write, g.tokens_reasoning, g.cost_nanos,
        CASE WHEN g.cost_breakdown LIKE '{%'
            AND (SELECT string_agg(k, ',') FROM json_object_keys(g.cost_breakdown::json) k) = 'prompt,completion,cache_read,cache_write,request,image'
            AND (SELECT count(*) FROM json_each(g.cost_breakdown::json) e WHERE json_typeof(e.value) <> 'string') = 0
          THEN json_build_array(g.cost_breakdown::json ->> 'prompt', g.cost_breakdown::json ->> 'completion',
            g.cost_breakdown::json ->> 'cache_read', g.cost_breakdown::json ->> 'cache_write',
            g.cost_breakdown::json ->> 'request', g.cost_breakdown::json ->> 'image')::text
          ELSE g.cost_breakdown END,
        g.latency_ms, g.first_token_ms, ${ref('o.endpoint')}, o.ms,
        CASE WHEN o.id IS NOT NULL OR g.attempts IS NULL OR g.attempts = '[]' THEN NULL ELSE g.attempts END,
        ${ref('g.http_referer')}, ${ref('g.x_title')}, g.end_user
      FROM generations g LEFT JOIN one_attempt o ON o.id = g.id
      ORDER BY g.created_at COLLATE "C", g.id COLLATE "C";
    DROP TABLE generations;

    CREATE INDEX generation_records_created ON generation_records(created_ms, seq);
    CREATE INDEX generation_records_account ON generation_records(account_ref, created_ms, seq, model_ref, provider_ref, is_error);
    CREATE INDEX generation_records_key ON generation_records(key_ref, created_ms, seq);
    CREATE INDEX generation_records_model ON generation_records(model_ref, created_ms, seq);
    ${GENERATIONS_VIEW_POSTGRES}

    ALTER TABLE accounts ADD COLUMN retention_days BIGINT;
  `,
};
