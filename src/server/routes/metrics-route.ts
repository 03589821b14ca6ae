import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { Services } from '../services.ts';

/**
 * GET /metrics: the Prometheus text format, on the main port. Open by default (bind the
 * gateway to a private interface, or set `metrics.token`); with `metrics.token` set, the
 * scraper sends `Authorization: Bearer <token>`. Absent when `metrics.enabled: false`.
 */
export function registerMetricsRoute(app: FastifyInstance, services: Services): void {
  const metrics = services.telemetry.metrics;
  if (metrics === null) return;
  const token = services.config.metrics.token;
  const expected = token === undefined ? null : digest(token);
  const schema = {
    summary: 'Prometheus metrics of this gateway (docs/operations.md); a bearer token when metrics.token is set',
    tags: ['meta'],
    response: { 200: { description: 'The Prometheus text exposition format', type: 'string' } },
  };
  app.get('/metrics', { schema }, async (request, reply) => {
    if (expected !== null && !timingSafeEqual(digest(bearer(request.headers.authorization)), expected)) {
      throw new GatewayError('authentication_required', 'GET /metrics needs the metrics token: Authorization: Bearer <metrics.token>.');
    }
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
}

function bearer(header: string | undefined): string {
  const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1] ?? '';
}

/** Compared as digests: equal lengths, so the comparison takes the same time whatever the guess. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
