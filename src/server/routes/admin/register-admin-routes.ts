import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { registerAdminAccountRoutes } from './accounts-routes.ts';
import { registerAccountSettingsRoutes } from './account-settings-routes.ts';
import { registerAdminConfigRoute } from './config-routes.ts';
import { registerAdminKeyRoutes } from './admin-keys-routes.ts';
import { registerKeyUsageRoutes } from './key-usage-routes.ts';
import { registerAuditRoute } from './audit-routes.ts';
import { registerCreditsRoutes } from './credits-routes.ts';
import { registerGenerationsRoutes } from './generations-routes.ts';
import { registerGenerationsCsvRoutes } from './generations-csv-route.ts';
import { registerGenerationsExportRoutes } from './generations-export-route.ts';
import { registerAdminHealthRoute } from './health-routes.ts';
import { registerRefusalsRoute } from './refusals-routes.ts';
import { registerAdminMcpRoutes } from './mcp-routes.ts';
import { registerUsageRoutes } from './usage-routes.ts';

/** The admin API (/admin/..., admin keys) and the account reports (/usage, /activity, /ledger, management keys), under every prefix. */
import { registerMemberRoutes } from '../members-routes.ts';
export function registerAdminRoutes(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  const stores = services.stores;
  for (const prefix of prefixes) {
    registerAdminAccountRoutes(app, services, stores, prefix);
    registerCreditsRoutes(app, services, stores, prefix);
    registerAdminKeyRoutes(app, services, stores, prefix);
    registerKeyUsageRoutes(app, services, prefix);
    registerUsageRoutes(app, services, stores, prefix);
    registerGenerationsRoutes(app, services, stores, prefix);
    registerGenerationsCsvRoutes(app, services, stores, prefix);
    registerGenerationsExportRoutes(app, services, stores, prefix);
    registerAdminHealthRoute(app, services, prefix);
    registerAuditRoute(app, services, stores, prefix);
    registerRefusalsRoute(app, services, stores, prefix);
    registerAccountSettingsRoutes(app, services, stores, prefix);
    registerMemberRoutes(app, services, prefix);
    registerAdminConfigRoute(app, services, prefix);
    registerAdminMcpRoutes(app, services, prefix);
  }
}
