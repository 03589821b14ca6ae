import type { FastifyInstance } from 'fastify';
import { registerAdminAccountRoutes, type AccountsRoutesDeps } from './accounts-routes.ts';
import { registerAccountSettingsRoutes, type AccountSettingsRoutesDeps } from './account-settings-routes.ts';
import { registerAdminConfigRoute, type ConfigRoutesDeps } from './config-routes.ts';
import { registerAdminKeyRoutes, type AdminKeysRoutesDeps } from './admin-keys-routes.ts';
import { registerKeyUsageRoutes, type KeyUsageRoutesDeps } from './key-usage-routes.ts';
import { registerAuditRoute, type AuditRoutesDeps } from './audit-routes.ts';
import { registerCreditsRoutes, type CreditsRoutesDeps } from './credits-routes.ts';
import { registerGenerationsRoutes, type GenerationsRoutesDeps } from './generations-routes.ts';
import { registerGenerationsCsvRoutes, type GenerationsCsvRouteDeps } from './generations-csv-route.ts';
import { registerGenerationsExportRoutes, type GenerationsExportRouteDeps } from './generations-export-route.ts';
import { registerAdminHealthRoute, type AdminHealthRoutesDeps } from './health-routes.ts';
import { registerRefusalsRoute, type RefusalsRoutesDeps } from './refusals-routes.ts';
import { registerAdminMcpRoutes, type McpRoutesDeps } from './mcp-routes.ts';
import { registerUsageRoutes, type UsageRoutesDeps } from './usage-routes.ts';
import { registerMemberRoutes, type MembersRoutesDeps } from '../members-routes.ts';

/** What the admin API and the account reports use: the union of what each of their modules declares. */
export type AdminRoutesDeps = AccountsRoutesDeps &
  AccountSettingsRoutesDeps &
  ConfigRoutesDeps &
  AdminKeysRoutesDeps &
  KeyUsageRoutesDeps &
  AuditRoutesDeps &
  CreditsRoutesDeps &
  GenerationsRoutesDeps &
  GenerationsCsvRouteDeps &
  GenerationsExportRouteDeps &
  AdminHealthRoutesDeps &
  RefusalsRoutesDeps &
  McpRoutesDeps &
  UsageRoutesDeps &
  MembersRoutesDeps;

/** The admin API (/admin/..., admin keys) and the account reports (/usage, /activity, /ledger, management keys), under every prefix. */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRoutesDeps, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    registerAdminAccountRoutes(app, deps, prefix);
    registerCreditsRoutes(app, deps, prefix);
    registerAdminKeyRoutes(app, deps, prefix);
    registerKeyUsageRoutes(app, deps, prefix);
    registerUsageRoutes(app, deps, prefix);
    registerGenerationsRoutes(app, deps, prefix);
    registerGenerationsCsvRoutes(app, deps, prefix);
    registerGenerationsExportRoutes(app, deps, prefix);
    registerAdminHealthRoute(app, deps, prefix);
    registerAuditRoute(app, deps, prefix);
    registerRefusalsRoute(app, deps, prefix);
    registerAccountSettingsRoutes(app, deps, prefix);
    registerMemberRoutes(app, deps, prefix);
    registerAdminConfigRoute(app, deps, prefix);
    registerAdminMcpRoutes(app, deps, prefix);
  }
}
