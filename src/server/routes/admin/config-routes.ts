import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { redactConfig, redactUrls } from '../../../config/redact-config.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { actorOf, requireAdmin } from './admin-common.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';
import type { Stores } from '../../../store/store-contract.ts';
import type { InForce, ReloadResult } from '../../wiring/in-force.ts';

/** What config-routes.ts uses of the services (handed out by build-app.ts). */
export interface ConfigRoutesDeps {
  stores: Pick<Stores, 'audit'>;
  inForce: Pick<InForce, 'config' | 'current' | 'lastReload' | 'reloadAgain' | 'scrubber'>;
}

/**
 * GET /admin/config: the running configuration, read-only, for the operator's dashboard:
 * the file as the operator wrote it (`yaml`: its own names, `${VAR}` references unresolved)
 * and the whole configuration as loaded with every default (`data`), which generation is
 * in force and how the last reload went. Every secret is masked (config/redact-config.ts:
 * secret-named fields, every header value, the credentials of every URL), then, as a second
 * net, any configured upstream credential wherever else it appears (the scrubber's list).
 *
 * POST /admin/config/reload: what SIGHUP does, asked over HTTP — the file is read again and
 * swapped in for new requests, or refused with the reason while the one in force stays.
 */
export function registerAdminConfigRoute(app: FastifyInstance, deps: ConfigRoutesDeps, prefix: string): void {
  app.get(
    `${prefix}/admin/config`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'The running configuration, every secret masked',
        tags: ['admin: config'],
        response: '{data: config, file, yaml, generation, loaded_at, last_reload}',
        answers: 'RunningConfig',
      }),
    },
    async (request) => {
      await requireAdmin(request);
      const config = deps.inForce.config;
      const mask = (v: unknown): unknown => JSON.parse(deps.inForce.scrubber.text(JSON.stringify(redactConfig(v)))) as unknown;
      const source = config.source;
      return {
        data: mask(config),
        file: source?.file ?? null,
        yaml: source?.tree === undefined ? null : stringify(mask(source.tree), { lineWidth: 0 }),
        generation: deps.inForce.current.generation,
        loaded_at: deps.inForce.current.loadedAt,
        last_reload: reloadView(deps.inForce.lastReload),
      };
    },
  );

  app.post(
    `${prefix}/admin/config/reload`,
    {
      ...access('admin'),
      schema: routeSchema({
        summary: 'Reload the configuration file, as SIGHUP does',
        tags: ['admin: config'],
        response: '{data: {ok, generation, at, models?, warnings?, error?}}',
        answers: 'ConfigReloadAnswer',
      }),
    },
    async (request) => {
      const auth = await requireAdmin(request);
      const result = deps.inForce.reloadAgain();
      if (result === null)
        throw new GatewayError(
          'not_found',
          'No configuration file behind this gateway (it runs on the defaults): there is nothing to reload.',
        );
      await deps.stores.audit.record(
        actorOf(auth),
        'config.reload',
        null,
        result.ok ? { ok: true, generation: result.generation } : { ok: false, error: redactUrls(result.error) },
        result.at,
      );
      return { data: reloadView(result) };
    },
  );
}

function reloadView(r: ReloadResult | null): Record<string, unknown> | null {
  if (r === null) return null;
  return r.ok
    ? { ok: true, generation: r.generation, at: r.at, models: r.models, warnings: r.warnings }
    : { ok: false, generation: r.generation, at: r.at, error: redactUrls(r.error) };
}
