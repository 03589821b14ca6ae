import type { GenerationRecord } from '../../store/generation-records.ts';
import { formatNanos, nanosToNumber } from '../../money/money.ts';

/**
 * One generation record as every surface shows it — GET /generation, GET
 * /admin/generations/{id} and `switchyard generations show|list --json`: one serializer, so
 * the CLI's names are the API's (OpenRouter's names where it has them: `provider_name`,
 * `total_cost`, `latency`, `native_tokens_*`, `app_title`). `total_cost` is a number for
 * OpenRouter's clients; `total_cost_usd` is the same amount as exact decimal text.
 */
export function generationView(row: GenerationRecord): Record<string, unknown> {
  return {
    id: row.id,
    account_id: row.accountId,
    key_hash: row.keyHash,
    model: row.model,
    provider_name: row.provider,
    upstream_model: row.upstreamModel,
    upstream_id: row.upstreamId,
    api_type: row.dialect,
    created_at: row.createdAt,
    streamed: row.streamed,
    cancelled: row.cancelled,
    cache_hit: row.cacheHit === true,
    // Carried by the account's own provider key (docs/byok.md): charged the BYOK fee, not the price.
    byok: row.byok === true,
    status: row.status,
    error_code: row.errorCode,
    finish_reason: row.finishReason,
    native_finish_reason: row.nativeFinishReason,
    tokens_prompt: row.tokensPrompt,
    tokens_completion: row.tokensCompletion,
    native_tokens_cached: row.tokensCacheRead,
    native_tokens_cache_write: row.tokensCacheWrite,
    native_tokens_reasoning: row.tokensReasoning,
    total_cost: nanosToNumber(row.costNanos),
    total_cost_usd: formatNanos(row.costNanos),
    usage: nanosToNumber(row.costNanos),
    cost_breakdown: row.costBreakdown,
    latency: row.latencyMs,
    generation_time: row.latencyMs,
    time_to_first_token: row.firstTokenMs,
    attempts: row.attempts,
    http_referer: row.httpReferer,
    app_title: row.xTitle,
    user: row.endUser,
    // A later model turn of a request that ran MCP tools: the first turn's id, and the calls it was given (docs/tools.md).
    parent_id: row.parentId ?? null,
    tool_calls: row.toolCalls ?? [],
    // The account's guardrail rules that fired on the request: name, detector, action; never the text they matched.
    guardrails: row.guardrails ?? [],
  };
}
