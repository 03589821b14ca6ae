// The config of the switchyard under test, with every promise on (issue 14: "do not trade
// away any promise for speed"): two OpenAI-format providers in front of the same bench
// upstream, so the planner orders two endpoints and a failed attempt could fail over
// (routing); both moderated by in-process rules, so every request's text is checked
// (moderation); the tier's rate limits counted on every request but raised out of the
// benchmark's reach (limits); credit holds and settlement before the last byte are not
// configurable and always run. Used by bench/gateway-server.ts and, through the real CLI,
// by the workers phase (bench/lib/workers-phase.ts).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

let gatewayFlags: string[] | null = null;

/**
 * The Node flags `npm start` (and the image) run the gateway with, read from package.json's
 * start script, so the bench measures what operators run (today: --max-semi-space-size=16,
 * and the hook that serves the type-stripped sources, made absolute so that any checkout's
 * bench finds its own). Like npm start, the first call brings that cache up to date.
 */
export function gatewayNodeFlags(): string[] {
  if (gatewayFlags !== null) return gatewayFlags;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const flags: string[] = [...(pkg.scripts.start.match(/--max-semi-space-size=\d+/g) ?? [])];
  const hook = /--import (\S*type-stripped-hook\.mjs)/.exec(pkg.scripts.start)?.[1];
  if (hook !== undefined) {
    spawnSync(process.execPath, [join(root, 'bin', 'type-stripped-sources.mjs')], { stdio: 'inherit' });
    flags.push('--import', pathToFileURL(join(root, hook)).href);
  }
  gatewayFlags = flags;
  return flags;
}

/**
 * The allocator settings `npm start` (and the image) give the gateway's process, read from
 * package.json's start script (`MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} …`): glibc reads them
 * at start-up, so the bench sets them in the gateway's environment.
 */
export function gatewayEnv(): Record<string, string> {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return Object.fromEntries(
    [...pkg.scripts.start.matchAll(/\b(MALLOC_[A-Z_]+)=\$\{\1:-(\d+)\}/g)].map((m) => [m[1]!, process.env[m[1]!] ?? m[2]!]),
  );
}

/** How one checkout's gateway is launched: its Node flags, environment and bench folder (for its preloads). */
export interface GatewayLaunch {
  flags: string[];
  env: Record<string, string>;
  bench: string;
}

/**
 * The launch of this checkout's gateway, or of another's (`root`, e.g. a `git archive` of the
 * commit before a change) with that checkout's own flags, environment and preloads: a
 * type-stripped sources' hook serves only its own checkout's files, so another checkout's
 * gateway (or a preload from this one) under this one's hook would load Node's type stripper
 * (~20-40 MB more, in every thread) and measure that too.
 */
export async function gatewayLaunch(root?: string): Promise<GatewayLaunch> {
  if (root === undefined) return { flags: gatewayNodeFlags(), env: gatewayEnv(), bench: fileURLToPath(new URL('../', import.meta.url)) };
  const other = (await import(pathToFileURL(join(root, 'bench', 'lib', 'switchyard-config.ts')).href)) as {
    gatewayNodeFlags: () => string[];
    gatewayEnv?: () => Record<string, string>;
  };
  return { flags: other.gatewayNodeFlags(), env: other.gatewayEnv?.() ?? {}, bench: join(root, 'bench') };
}

export const UPSTREAM_KEY_ENV = 'LOCAL_KEY';
export const UPSTREAM_KEY = 'upstream-secret';
/** The tier the benchmark's account is on. */
export const BENCH_TIER = 'enterprise';

export interface SwitchyardConfigOptions {
  /** The upstream's base URL, ending in /v1. */
  upstreamBaseUrl: string;
  metrics?: boolean;
  /** A fixed port (for `switchyard serve`); the in-process gateway listens on 0. */
  port?: number;
}

export function switchyardConfig(o: SwitchyardConfigOptions): string {
  const endpoint = (provider: string): string => `      - provider: ${provider}
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }`;
  return `sim: false
${o.port === undefined ? '' : `server:\n  host: 127.0.0.1\n  port: ${o.port}\n`}providers:
  - id: local
    kind: openai
    base_url: ${o.upstreamBaseUrl}
    api_key: \${${UPSTREAM_KEY_ENV}}
    moderated: true
  - id: local-b
    kind: openai
    base_url: ${o.upstreamBaseUrl}
    api_key: \${${UPSTREAM_KEY_ENV}}
    moderated: true
models:
  - id: acme/mock-1
    name: Mock One
    context_length: 32000
    capabilities: [text, tool_calling, json_mode, streaming]
    endpoints:
${endpoint('local')}
${endpoint('local-b')}
moderation:
  rules:
    - name: bench-rule
      patterns: ["never-in-a-bench-prompt", "forbidden\\\\s+words"]
tiers:
  ${BENCH_TIER}:
    requests_per_minute: 1000000000
    requests_per_day: null
    account_requests_per_minute: null
${o.metrics === false ? 'metrics:\n  enabled: false\n' : ''}`;
}
