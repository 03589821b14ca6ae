import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { redactConfig } from '../../../config/redact-config.ts';
import { requireAdmin } from './admin-common.ts';
import { routeSchema } from './route-schema.ts';
import { access } from '../../route-access.ts';

/**
 * GET /admin/config: the running configuration, read-only, for the operator's dashboard.
 * Every secret is masked (config/redact-config.ts: secret-named fields, every header value,
 * the credentials of every URL), then, as a second net, any configured upstream credential
 * wherever else it appears (the scrubber's list).
 */
export function registerAdminConfigRoute(app: FastifyInstance, services: Services, prefix: string): void {
  app.get(`${prefix}/admin/config`, { ...access('admin'),
    schema: routeSchema({ summary: 'The running configuration, every secret masked', tags: ['admin: config'], response: '{data: config}' }),
  }, async (request) => {
    await requireAdmin(services, request);
    const { source: _source, ...config } = services.config;
    const masked = redactConfig(config);
    return { data: JSON.parse(services.scrubber.text(JSON.stringify(masked))) as unknown };
  });
}
