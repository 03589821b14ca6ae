import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { requireAdmin } from './admin-common.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

/**
 * GET /admin/health: every provider endpoint of the catalog with its live health and circuit
 * state; a provider with a credential pool (`api_keys:`) also lists each credential's label,
 * health (ok, cooling down until, removed) and headroom, never its key.
 */
export function registerAdminHealthRoute(app: FastifyInstance, services: Services, prefix: string): void {
  app.get(`${prefix}/admin/health`, { ...access('admin'),
    schema: routeSchema({ summary: 'Provider and endpoint health', tags: ['admin: health'], response: '{data: {providers: [{id, endpoints: [...], credentials?: [...]}]}}', answers: 'ProviderHealth' }),
  }, async (request) => {
    await requireAdmin(services, request);
    const byProvider = new Map<string, Array<Record<string, unknown>>>();
    for (const model of services.catalog.models) {
      for (const ep of model.endpoints) {
        const h = services.health.health(ep.id);
        const list = byProvider.get(ep.provider.id) ?? [];
        list.push({
          endpoint_id: ep.id, model: model.id, provider_name: ep.provider.name,
          circuit: services.breakers.state(ep.id), recent_outage: h.recentOutage,
          uptime_last_5m: h.uptimeLast5m, uptime_last_30m: h.uptimeLast30m, uptime_last_1d: h.uptimeLast1d,
          latency_last_30m: h.latencyLast30m, throughput_last_30m: h.throughputLast30m,
        });
        byProvider.set(ep.provider.id, list);
      }
    }
    const now = services.now();
    return {
      data: {
        providers: [...byProvider].map(([id, endpoints]) => {
          const pool = services.catalog.providers.get(id)?.credentials;
          return pool === undefined ? { id, endpoints } : { id, endpoints, credentials: pool.status(now) };
        }),
      },
    };
  });
}
