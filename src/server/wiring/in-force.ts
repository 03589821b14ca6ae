import type { Catalog } from '../../catalog/catalog.ts';
import { loadConfig } from '../../config/load-config.ts';
import type { TierLimits, TierTable } from '../../config/tier-limits.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { AccountService } from '../../billing/account-service.ts';
import type { McpRegistry } from '../../mcp/mcp-registry.ts';
import type { GenerationPipeline } from '../../pipeline/generation-pipeline.ts';
import { scrubInProcessLogs, type SecretScrubber } from '../../providers/http/scrub-secrets.ts';
import type { AttemptPlanner } from '../../routing/plan-attempts.ts';
import type { Stores } from '../../store/store-contract.ts';
import { buildGeneration, restartOnlyChange, type ConfigGeneration, type SharedState } from '../config-generation.ts';
import type { ServiceOptions } from './service-options.ts';

export type ReloadResult =
  | { ok: true; attempt: number; generation: number; at: string; models: number; warnings: string[] }
  | { ok: false; attempt: number; generation: number; at: string; error: string };

/**
 * The configuration in force and its reloads. Every field built from the reloadable part of
 * the config reads the generation in force (config-generation.ts), so a holder of this
 * object sees a reload at once: read a field once per request.
 */
export interface InForce {
  readonly config: GatewayConfig;
  readonly catalog: Catalog;
  readonly catalogWarnings: string[];
  readonly planner: AttemptPlanner;
  readonly pipeline: GenerationPipeline;
  /** The MCP servers whose tools requests may name (the operator's, of the config in force; mcp/mcp-registry.ts). */
  readonly mcp: McpRegistry;
  /** Scrubs upstream credentials from what goes to clients and logs. */
  readonly scrubber: SecretScrubber;
  /** The configuration generation in force. */
  readonly current: ConfigGeneration;
  /** The last reload attempt (null before any). */
  readonly lastReload: ReloadResult | null;
  /**
   * Loads the configuration again (`load` throws on a bad file) and swaps it in for new
   * requests; a config that cannot serve, or changes a restart-only field, is refused and
   * the one in force stays. The outcome is also written to the database (reload-status.ts).
   */
  reload(load: () => GatewayConfig): ReloadResult;
  /**
   * Reloads from where the configuration came from (ServiceOptions.loadConfigAgain, else its
   * file), as SIGHUP does; null when there is nothing to read again (a config built in memory).
   */
  reloadAgain(): ReloadResult | null;
}

/** What a reload refills in place: the one tier map, the account bounds; where its outcome is written. */
export interface ReloadTargets {
  tiers: TierTable;
  accountService: AccountService;
  stores: Pick<Stores, 'reloadStatus'>;
}

/**
 * Builds generation 1 (throws, without side effects, when the config cannot serve) and the
 * reloads that replace it. `firstCatalog` was built before anything was opened.
 */
export function wireInForce(
  config: GatewayConfig,
  shared: SharedState,
  firstCatalog: { catalog: Catalog; warnings: string[] },
  targets: ReloadTargets,
  opts: Pick<ServiceOptions, 'env' | 'loadConfigAgain' | 'onHttpReload'>,
): InForce {
  let current = buildGeneration(config, shared, 1, firstCatalog);
  // Upstream credentials never reach a client or a log line (scrub-secrets.ts).
  scrubInProcessLogs(current.scrubber);
  let attempts = 0;
  let lastReload: ReloadResult | null = null;
  // Best effort, not awaited: a refused write loses only this report.
  void targets.stores.reloadStatus.write({ pid: process.pid, attempt: 0, generation: 1, ok: true, error: null, at: current.loadedAt });
  const reload = (load: () => GatewayConfig): ReloadResult => {
    attempts += 1;
    const at = new Date().toISOString();
    let result: ReloadResult;
    try {
      const next = load();
      const refused = restartOnlyChange(current.config, next);
      if (refused !== null) throw new Error(refused);
      const built = buildGeneration(next, shared, current.generation + 1);
      // The swap: one synchronous step, so every new request sees the whole new config.
      current = built;
      // The one tier map (account service, key status, rate limits) is refilled in the same step.
      const tiers = targets.tiers as Map<string, TierLimits>;
      tiers.clear();
      for (const t of built.tierList) tiers.set(t.id, t);
      targets.accountService.bounds.maxKeys = next.accounts.maxKeys;
      scrubInProcessLogs(built.scrubber);
      result = {
        ok: true,
        attempt: attempts,
        generation: built.generation,
        at,
        models: built.catalog.models.length,
        warnings: built.catalogWarnings,
      };
    } catch (err) {
      // A config error may quote the file: scrubbed with what is known of its secrets.
      result = { ok: false, attempt: attempts, generation: current.generation, at, error: current.scrubber.text((err as Error).message) };
    }
    lastReload = result;
    void targets.stores.reloadStatus.write({
      pid: process.pid,
      attempt: result.attempt,
      generation: result.generation,
      ok: result.ok,
      error: result.ok ? null : result.error,
      at,
    });
    return result;
  };

  const sourceFile = config.source?.file;
  const loadAgain = opts.loadConfigAgain ?? (sourceFile === undefined ? undefined : () => loadConfig({ path: sourceFile, env: opts.env }));
  const reloadAgain = (): ReloadResult | null => {
    if (loadAgain === undefined) return null;
    const result = reload(loadAgain);
    opts.onHttpReload?.(result);
    return result;
  };
  return {
    get config() {
      return current.config;
    },
    get catalog() {
      return current.catalog;
    },
    get catalogWarnings() {
      return current.catalogWarnings;
    },
    get planner() {
      return current.planner;
    },
    get pipeline() {
      return current.pipeline;
    },
    get mcp() {
      return current.mcp;
    },
    get scrubber() {
      return current.scrubber;
    },
    get current() {
      return current;
    },
    get lastReload() {
      return lastReload;
    },
    reload,
    reloadAgain,
  };
}
