import { readFileSync } from 'node:fs';

/**
 * What this gateway is: the package version (package.json) and the build it came from.
 * Read once, at first use. `switchyard --version`, `GET /ready` and the metrics'
 * `switchyard_build_info` all take it from here.
 *
 * The build is, first found: the env `SWITCHYARD_BUILD`; the first line of a `BUILD`
 * file at the package root (the Dockerfile writes the git commit there from its `BUILD`
 * build argument); else `dev` (a checkout run as is).
 */
export interface BuildInfo {
  version: string;
  build: string;
  /** The Node.js version running the gateway. */
  node: string;
}

const ROOT = new URL('../../', import.meta.url);

let cached: BuildInfo | null = null;

export function buildInfo(): BuildInfo {
  cached ??= readBuildInfo(process.env);
  return cached;
}

/** Exported for tests; everything else uses buildInfo(). */
export function readBuildInfo(env: Record<string, string | undefined>, root: URL = ROOT): BuildInfo {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version?: unknown };
  const version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  return { version, build: readBuild(env, root), node: process.versions.node };
}

function readBuild(env: Record<string, string | undefined>, root: URL): string {
  const fromEnv = env.SWITCHYARD_BUILD?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const line = readFileSync(new URL('BUILD', root), 'utf8').split('\n')[0]!.trim();
    if (line !== '') return line;
  } catch {
    // No BUILD file: a checkout.
  }
  return 'dev';
}

/** `switchyard --version`: `switchyard 0.1.0 (build dev, node 24.x)`. */
export function versionLine(info: BuildInfo = buildInfo()): string {
  return `switchyard ${info.version} (build ${info.build}, node ${info.node})`;
}
