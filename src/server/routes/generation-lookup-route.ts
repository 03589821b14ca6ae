import type { FastifyInstance } from 'fastify';
import { nanosToNumber } from '../../money/money.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Services } from '../services.ts';
import { access, requestAuth } from '../route-access.ts';

/** GET /api/v1/generation?id=: one generation record, to any key of the account that made it. */
export function registerGenerationLookupRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    app.get(`${prefix}/generation`, access('key'), async (request) => {
      const auth = requestAuth(request);
      const id = (request.query as { id?: string }).id;
      if (id === undefined || id === '') throw new GatewayError('missing_parameter', 'Missing required query parameter: "id".', { param: 'id' });
      const row = await services.generations.getRecord(id);
      if (row === undefined || row.accountId !== auth.account.id) throw new GatewayError('not_found', `No generation "${id}" for this account.`);
      return {
        data: {
          id: row.id,
          model: row.model,
          provider_name: row.provider,
          upstream_model: row.upstreamModel,
          upstream_id: row.upstreamId,
          api_type: row.dialect,
          created_at: row.createdAt,
          streamed: row.streamed,
          cancelled: row.cancelled,
          cache_hit: row.cacheHit === true,
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
          usage: nanosToNumber(row.costNanos),
          cost_breakdown: row.costBreakdown,
          latency: row.latencyMs,
          generation_time: row.latencyMs,
          time_to_first_token: row.firstTokenMs,
          attempts: row.attempts,
          http_referer: row.httpReferer,
          app_title: row.xTitle,
          user: row.endUser,
        },
      };
    });
  }
}
