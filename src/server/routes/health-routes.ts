import type { FastifyInstance } from 'fastify';
import { buildInfo } from '../../config/build-info.ts';
import type { Services } from '../services.ts';
import { access } from '../route-access.ts';
import { redactUrls } from '../../config/redact-config.ts';

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
export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/health', access('none'), async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/ready', access('none'), async (_request, reply) => {
    const checks = readiness(services);
    const failing = Object.entries(checks).filter(([, c]) => !c.ok).map(([name]) => name);
    const info = buildInfo();
    const current = services.current;
    const last = services.lastReload;
    reply.code(failing.length === 0 ? 200 : 503).header('cache-control', 'no-store');
    return {
      status: failing.length === 0 ? 'ready' : 'not_ready',
      failing,
      checks,
      version: info.version,
      build: info.build,
      pid: process.pid,
      in_flight: services.inFlight.count,
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

function readiness(services: Services): Record<string, Check> {
  const models = services.catalog.models.length;
  let database: Check;
  if (!services.leaseHeld) database = { ok: false, detail: 'the serve lease of the database was lost' };
  else if (services.settlements.failing) database = { ok: false, detail: `refuses writes: ${services.settlements.queued} settlement(s) waiting` };
  else if (services.databaseWriteError !== null) database = { ok: false, detail: `refuses writes: ${redactUrls(services.databaseWriteError)}` };
  else database = { ok: true, detail: 'writable' };
  return {
    database,
    redis: services.fleet === null ? { ok: true, detail: 'not_configured' } : services.fleet.redisCheck(),
    ...(services.fleet === null ? {} : { postgres: services.fleet.postgresCheck() }),
    catalog: models > 0 ? { ok: true, detail: `${models} models` } : { ok: false, detail: 'no model is served' },
    draining: services.inFlight.draining ? { ok: false, detail: `stopping: ${services.inFlight.count} request(s) finishing` } : { ok: true, detail: 'no' },
  };
}
