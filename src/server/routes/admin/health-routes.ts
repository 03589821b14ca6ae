import type { FastifyInstance } from 'fastify';
import { requireAdmin } from './admin-common.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import type { InForce } from '../../wiring/in-force.ts';
import type { CircuitBreakers } from '../../../routing/circuit-breaker.ts';
import type { HealthStore } from '../../../routing/health/health-store.ts';

/** What health-routes.ts uses of the services (handed out by build-app.ts). */
export interface AdminHealthRoutesDeps {
  inForce: Pick<InForce, 'catalog'>;
  now: () => number;
  breakers: CircuitBreakers;
  health: HealthStore;
}

/**
 * GET /admin/health: every provider endpoint of the catalog with its live health and circuit
 * state; a provider with a credential pool (`api_keys:`) also lists each credential's label,
 * health (ok, cooling down until, removed) and headroom, never its key.
 */
export function registerAdminHealthRoute(app: FastifyInstance, deps: AdminHealthRoutesDeps, prefix: string): void {
  app.get(
    `${prefix}/admin/health`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Provider and endpoint health',
        tags: ['admin: health'],
        response: '{data: {providers: [{id, endpoints: [...], credentials?: [...]}]}}',
        answers: 'ProviderHealth',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const byProvider = new Map<string, Array<Record<string, unknown>>>();
      for (const model of deps.inForce.catalog.models) {
        for (const ep of model.endpoints) {
          const h = deps.health.health(ep.id);
          const list = byProvider.get(ep.provider.id) ?? [];
          list.push({
            endpoint_id: ep.id,
            model: model.id,
            provider_name: ep.provider.name,
            circuit: deps.breakers.state(ep.id),
            recent_outage: h.recentOutage,
            uptime_last_5m: h.uptimeLast5m,
            uptime_last_30m: h.uptimeLast30m,
            uptime_last_1d: h.uptimeLast1d,
            latency_last_30m: h.latencyLast30m,
            throughput_last_30m: h.throughputLast30m,
          });
          byProvider.set(ep.provider.id, list);
        }
      }
      const now = deps.now();
      return {
        data: {
          providers: [...byProvider].map(([id, endpoints]) => {
            const pool = deps.inForce.catalog.providers.get(id)?.credentials;
            return pool === undefined ? { id, endpoints } : { id, endpoints, credentials: pool.status(now) };
          }),
        },
      };
    },
  );
}
