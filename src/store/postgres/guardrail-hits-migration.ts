import type { Migration } from '../sqlite/migrations.ts';

// Migration 26 (Postgres; ../sqlite/guardrail-hits-migration.ts is SQLite's): the guardrail rules
// that fired on a generation, with the generations view recreated to show them.

export const GUARDRAIL_HITS_POSTGRES: Migration = {
  version: 26,
  name: 'the guardrail rules that fired on a generation',
  sql: `
      -- As SQLite's migration 26: JSON [{name, detector, action}], never the matched text; NULL: none fired.
      ALTER TABLE generation_records ADD COLUMN guardrails TEXT;
      DROP VIEW generations;
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
    g.cache_hit::bigint AS cache_hit, g.byok::bigint AS byok, g.parent_id, g.tool_calls, g.guardrails
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
`,
};
