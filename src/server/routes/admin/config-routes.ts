import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { requireAdmin } from './admin-common.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

/** Field names whose values are secrets wherever they appear (provider keys, headers such as Authorization). */
const SECRET_NAME = /(key|secret|token|password|authorization|cookie|credentials?)$/i;
export const MASK = '********';

/**
 * GET /admin/config: the running configuration, read-only, for the operator's dashboard.
 * Every secret is masked: values of secret-named fields, every header value, and any
 * configured upstream credential wherever else it appears (the scrubber's list).
 */
export function registerAdminConfigRoute(app: FastifyInstance, services: Services, prefix: string): void {
  app.get(`${prefix}/admin/config`, { ...access('admin'),
    schema: routeSchema({ summary: 'The running configuration, every secret masked', tags: ['admin: config'], response: '{data: config}' }),
  }, async (request) => {
    await requireAdmin(services, request);
    const { source: _source, ...config } = services.config;
    const masked = mask(config, false);
    return { data: JSON.parse(services.scrubber.text(JSON.stringify(masked))) as unknown };
  });
}

function mask(value: unknown, secret: boolean): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (Array.isArray(value)) return value.map((v) => mask(v, secret));
  if (value instanceof RegExp) return value.source;
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, mask(v, secret || SECRET_NAME.test(k) || k === 'headers')]));
  }
  if (secret && (typeof value === 'string' || typeof value === 'number')) return MASK;
  if (typeof value === 'bigint') return value.toString();
  return value;
}
