import type { FastifyInstance } from 'fastify';
import { toEndpointRecord, toModelRecord } from '../../catalog/encode-model-record.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { Endpoint, ModelInfo } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { CircuitBreakers } from '../../routing/circuit-breaker.ts';
import type { HealthStore } from '../../routing/health/health-store.ts';
import { access, requestAuth } from '../route-access.ts';
import { keyAccess } from '../../auth/key-access.ts';
import { modelForKey } from '../key-models.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What model-endpoints-route.ts uses of the services (handed out by build-app.ts). */
export interface ModelEndpointsRouteDeps {
  inForce: Pick<InForce, 'catalog'>;
  breakers: CircuitBreakers;
  health: HealthStore;
}

/** `status` of an endpoint: 0 healthy, -1 demoted for an outage in the last 30 s, -2 circuit open (or probing). */
const STATUS_OK = 0;
const STATUS_RECENT_OUTAGE = -1;
const STATUS_CIRCUIT_OPEN = -2;

/**
 * GET /v1/models/{author}/{slug}/endpoints: a model's endpoints with their live health, in
 * OpenRouter's shape. What the catalog says is encoded once at boot; health per request.
 */
export function registerModelEndpointsRoute(app: FastifyInstance, deps: ModelEndpointsRouteDeps, prefixes: readonly string[]): void {
  // Built once per catalog (a config reload brings a new one).
  const byCatalog = new WeakMap<Catalog, Map<ModelInfo, ModelListing>>();
  const listingsOf = (catalog: Catalog): Map<ModelInfo, ModelListing> => {
    let listings = byCatalog.get(catalog);
    if (listings === undefined) {
      listings = new Map();
      for (const model of catalog.models) listings.set(model, buildListing(model));
      byCatalog.set(catalog, listings);
    }
    return listings;
  };
  for (const prefix of prefixes) {
    app.get(`${prefix}/models/:author/:slug/endpoints`, access('key'), async (request) => {
      const { author, slug } = request.params as { author: string; slug: string };
      const catalog = deps.inForce.catalog;
      // A key with an allowlist sees the models and endpoints it may use only.
      const allowed = keyAccess(requestAuth(request));
      const model = modelForKey(catalog, `${author}/${slug}`, allowed);
      const listing = model === undefined ? undefined : listingsOf(catalog).get(model);
      if (listing === undefined) throw new GatewayError('not_found', `No model "${author}/${slug}".`);
      const endpoints = allowed === null ? listing.endpoints : allowed.endpointsOf(listing.endpoints);
      return { data: { ...listing.head, endpoints: endpoints.map((e) => withHealth(e, deps.health, deps.breakers)) } };
    });
  }
}

interface StaticEndpoint {
  endpoint: Endpoint;
  fields: Record<string, unknown>;
}

interface ModelListing {
  head: Record<string, unknown>;
  endpoints: StaticEndpoint[];
}

function buildListing(model: ModelInfo): ModelListing {
  const record = toModelRecord(model);
  return {
    head: { id: model.id, name: model.name, created: model.created, description: model.description, architecture: record.architecture },
    endpoints: model.endpoints.map((ep) => ({ endpoint: ep, fields: toEndpointRecord(model, ep) })),
  };
}

function withHealth(e: StaticEndpoint, health: HealthStore, breakers: CircuitBreakers): Record<string, unknown> {
  const id = e.endpoint.id;
  const h = health.health(id);
  const status = breakers.state(id) !== 'closed' ? STATUS_CIRCUIT_OPEN : health.hasRecentOutage(id) ? STATUS_RECENT_OUTAGE : STATUS_OK;
  return {
    ...e.fields,
    status,
    uptime_last_5m: h.uptimeLast5m,
    uptime_last_30m: h.uptimeLast30m,
    uptime_last_1d: h.uptimeLast1d,
    latency_last_30m: h.latencyLast30m,
    throughput_last_30m: h.throughputLast30m,
  };
}
