import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { access } from '../route-access.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { Telemetry } from '../../observability/telemetry.ts';

/** What metrics-route.ts uses of the services (handed out by build-app.ts). */
export interface MetricsRouteDeps {
  inForce: Pick<InForce, 'config'>;
  telemetry: Telemetry;
}

/**
 * GET /metrics: the Prometheus text format, on the main port. Open by default (bind the
 * gateway to a private interface, or set `metrics.token`); with `metrics.token` set, the
 * scraper sends `Authorization: Bearer <token>`. Absent when `metrics.enabled: false`.
 */
export function registerMetricsRoute(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const metrics = deps.telemetry.metrics;
  if (metrics === null) return;
  const token = deps.inForce.config.metrics.token;
  const expected = token === undefined ? null : digest(token);
  const schema = {
    summary: 'Prometheus metrics of this gateway (docs/operations.md); a bearer token when metrics.token is set',
    tags: ['meta'],
    response: {
      200: {
        description: 'The Prometheus text exposition format',
        content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
      },
    },
  };
  const declared =
    expected === null
      ? access('none', { note: 'open: no `metrics.token` configured' })
      : access('metrics-token', {
          readKey: (h) => bearer(h.authorization),
          checkToken: (presented) => timingSafeEqual(digest(presented ?? ''), expected),
        });
  app.get('/metrics', { ...declared, schema }, async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * Counts every answer by method, route pattern (`/v1/chat/completions`, `/v1/models/*`;
 * `unmatched` for unknown paths, so a client's path never becomes a label) and status
 * class. On the root instance, so it sees every route.
 */
export function countHttpRequests(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const counter = deps.telemetry.metrics?.httpRequests;
  if (counter === undefined) return;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    counter.inc(1, request.method, request.is404 ? 'unmatched' : route, STATUS_CLASSES[Math.floor(reply.statusCode / 100) - 1] ?? 'other');
    done();
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
