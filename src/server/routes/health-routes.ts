import type { FastifyInstance } from 'fastify';
import { buildInfo } from '../../config/build-info.ts';
import { access } from '../route-access.ts';
import { redactUrls } from '../../config/redact-config.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { SettlementQueue } from '../../billing/settlement-queue.ts';
import type { InFlight } from '../in-flight.ts';
import type { FleetServices } from '../fleet-services.ts';

/** What health-routes.ts uses of the services (handed out by build-app.ts). */
export interface HealthRoutesDeps {
  inForce: Pick<InForce, 'catalog' | 'current' | 'lastReload'>;
  settlements: SettlementQueue;
  inFlight: InFlight;
  fleet: FleetServices | null;
  lease: { readonly held: boolean; readonly lastWriteError: string | null };
}

/**
 * Probes, unauthenticated and cheap (no upstream call, no database query):
 *
 * - `GET /health`, liveness: 200 while the process serves HTTP; it checks nothing else
 *   (the draining flag included: a stopping gateway closes its listener instead).
 * - `GET /ready`, readiness: 200 when every check passes, else 503 with `failing` naming
 *   the checks that did not. Checks: `database` (writable: the serve lease is held, its
 *   last renewal — a write every second — succeeded, and settlements are being written), `redis` (a fleet instance: its connection to
 *   Redis is up; one process on SQLite: `not_configured`), `postgres` (a fleet instance
 *   only: the last read of a balance reached the database), `catalog` (loaded, at least one model),
 *   `draining` (a graceful stop began). The body also says the version and build, and
 *   which config generation is in force (`config.generation`, `config.loaded_at`, the
 *   last reload's outcome), which is how a reload's effect can be seen from outside.
 */
export function registerHealthRoutes(app: FastifyInstance, deps: HealthRoutesDeps): void {
  app.get('/health', access('none'), async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/ready', access('none'), async (_request, reply) => {
    const checks = readiness(deps);
    const failing = Object.entries(checks)
      .filter(([, c]) => !c.ok)
      .map(([name]) => name);
    const info = buildInfo();
    const current = deps.inForce.current;
    const last = deps.inForce.lastReload;
    reply.code(failing.length === 0 ? 200 : 503).header('cache-control', 'no-store');
    return {
      status: failing.length === 0 ? 'ready' : 'not_ready',
      failing,
      checks,
      version: info.version,
      build: info.build,
      pid: process.pid,
      in_flight: deps.inFlight.count,
      config: {
        generation: current.generation,
        loaded_at: current.loadedAt,
        last_reload: last === null ? null : { ok: last.ok, at: last.at, ...(last.ok ? {} : { error: redactUrls(last.error) }) },
      },
    };
  });
}

interface Check {
  ok: boolean;
  detail: string;
}

function readiness(deps: HealthRoutesDeps): Record<string, Check> {
  const models = deps.inForce.catalog.models.length;
  let database: Check;
  if (!deps.lease.held) database = { ok: false, detail: 'the serve lease of the database was lost' };
  else if (deps.settlements.failing) database = { ok: false, detail: `refuses writes: ${deps.settlements.queued} settlement(s) waiting` };
  else if (deps.lease.lastWriteError !== null) database = { ok: false, detail: `refuses writes: ${redactUrls(deps.lease.lastWriteError)}` };
  else database = { ok: true, detail: 'writable' };
  return {
    database,
    redis: deps.fleet === null ? { ok: true, detail: 'not_configured' } : deps.fleet.redisCheck(),
    ...(deps.fleet === null ? {} : { postgres: deps.fleet.postgresCheck() }),
    catalog: models > 0 ? { ok: true, detail: `${models} models` } : { ok: false, detail: 'no model is served' },
    draining: deps.inFlight.draining
      ? { ok: false, detail: `stopping: ${deps.inFlight.count} request(s) finishing` }
      : { ok: true, detail: 'no' },
  };
}
