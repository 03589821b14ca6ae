import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Real client programs (Claude Code, Codex) are installed on demand from the npm registry
// into a cache outside the repository, once per version, and run from there. They are large
// (hundreds of MB of native binary), so they are neither devDependencies nor part of CI.

/** `$SWITCHYARD_CLIENTS_DIR`, else `$XDG_CACHE_HOME/switchyard-clients`, else `~/.cache/switchyard-clients`. */
export function clientsCacheDir(): string {
  const explicit = process.env.SWITCHYARD_CLIENTS_DIR;
  if (explicit !== undefined && explicit.length > 0) return explicit;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchyard-clients');
}

export interface NpmClient {
  /** npm package to install, e.g. `@anthropic-ai/claude-code`. */
  pkg: string;
  version: string;
  /** The executable, relative to the install prefix's `node_modules`. */
  binary: string;
}

/**
 * Installs `pkg@version` with `npm install --prefix <cache>/<pkg>@<version>` unless its
 * binary is already there, and returns the binary's path.
 */
export function installNpmClient(client: NpmClient, log: (line: string) => void = () => {}): string {
  const prefix = join(clientsCacheDir(), `${client.pkg.replace('/', '__')}@${client.version}`);
  const binary = join(prefix, 'node_modules', client.binary);
  if (existsSync(binary)) return binary;
  mkdirSync(prefix, { recursive: true });
  log(`installing ${client.pkg}@${client.version} into ${prefix} (first run only)`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `${client.pkg}@${client.version}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (!existsSync(binary)) throw new Error(`${client.pkg}@${client.version} installed, but ${binary} is missing (unsupported platform?)`);
  return binary;
}
