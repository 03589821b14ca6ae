import type { SharedCredentialUse } from '../../catalog/shared-credential-use.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { maxEntriesPerAccount } from '../../config/parse-sticky.ts';
import { InProcessInFlightLimiter, type InFlightLimiter } from '../../limits/in-flight-limiter.ts';
import { InProcessRateLimiter } from '../../limits/in-process-rate-limiter.ts';
import type { RateLimiter } from '../../limits/rate-limiter.ts';
import { InProcessResponseCacheStore, type ResponseCacheStore } from '../../pipeline/response-cache/response-cache-store.ts';
import { UpstreamClient } from '../../providers/http/upstream-client.ts';

import type { HealthStore } from '../../routing/health/health-store.ts';
import { InProcessHealthStore } from '../../routing/health/in-process-health-store.ts';
import { InProcessStickyRoutes } from '../../routing/sticky/sticky-routes.ts';
import { StickyRouting } from '../../routing/sticky/sticky-routing.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { FleetServices } from '../fleet-services.ts';
import type { Log } from './service-options.ts';

/**
 * What the requests' routing shares across reloads: the upstream connection pool, endpoint
 * health, rate-limit counters, in-flight leases, sticky routes and the response cache's
 * entries — in this process, or in Redis for a fleet.
 */
export interface RoutingGroup {
  upstream: UpstreamClient;
  health: HealthStore;
  limiter: RateLimiter;
  inFlight: InFlightLimiter;
  sticky: StickyRouting;
  responseCacheStore: ResponseCacheStore;
  /** Credential pools' use counted by the fleet (Redis); absent: each process counts its own. */
  credentialUse?: SharedCredentialUse;
}

/** `telemetry` observes every upstream call; `breakers` are built before it (its metrics read them). */
export function wireRouting(config: GatewayConfig, fleet: FleetServices | null, telemetry: Telemetry, log: Log): RoutingGroup {
  return {
    upstream: new UpstreamClient({ observer: telemetry }),
    health: new InProcessHealthStore(),
    limiter: fleet?.limiter ?? new InProcessRateLimiter(),
    inFlight: fleet?.inFlight ?? new InProcessInFlightLimiter(),
    sticky: new StickyRouting(
      fleet?.sticky ?? new InProcessStickyRoutes({ maxEntries: config.sticky.maxEntries }),
      log,
      maxEntriesPerAccount(config.sticky),
    ),
    responseCacheStore: fleet?.responseCache ?? new InProcessResponseCacheStore({ maxTotalBytes: config.cache.maxTotalBytes }),
    ...(fleet === null ? {} : { credentialUse: fleet.credentialUse }),
  };
}
