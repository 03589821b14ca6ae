import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// How the operator runs the `switchyard` command on this machine, against this gateway's
// database: what the first-start banner and the dashboard's sign-in tell them to type. A
// newcomer after `npm ci` has no `switchyard` on PATH (README: `npx switchyard ...`); the
// image links one; from elsewhere the launcher is run by its path. The settings that pick
// the database (--config, SWITCHYARD_DATA_DIR, a sqlite: DATABASE_URL) go with it, so the
// command reaches the database the gateway serves; a postgres:// URL is never printed (it
// holds a password): the operator's shell has it, as the gateway's had.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = join(ROOT, 'bin', 'switchyard.mjs');

export interface CliInvocationContext {
  env: Record<string, string | undefined>;
  cwd: string;
  /** The config file the gateway loaded with --config (SWITCHYARD_CONFIG otherwise). */
  configPath?: string | undefined;
}

/** The command line that runs `switchyard`, up to its subcommand: `npx switchyard`, or with what picks the database. */
export function cliInvocation(ctx: CliInvocationContext): string {
  const words: string[] = [];
  const dataDir = ctx.env.SWITCHYARD_DATA_DIR;
  if (dataDir !== undefined && dataDir !== '') words.push(`SWITCHYARD_DATA_DIR=${quote(resolve(ctx.cwd, dataDir))}`);
  const url = ctx.env.DATABASE_URL;
  if (url !== undefined && url.startsWith('sqlite:')) words.push(`DATABASE_URL=${quote(url)}`);
  words.push(command(ctx));
  const config = ctx.configPath ?? (ctx.env.SWITCHYARD_CONFIG === '' ? undefined : ctx.env.SWITCHYARD_CONFIG);
  if (config !== undefined) words.push('--config', quote(resolve(ctx.cwd, config)));
  return words.join(' ');
}

function command(ctx: CliInvocationContext): string {
  return cliCommand(ctx) ?? `node ${quote(LAUNCHER)}`;
}

/**
 * The command alone, naming no path of this machine (for answers to clients): `switchyard`
 * (on PATH) or `npx switchyard` (in the gateway's folder, after `npm ci`); null when neither
 * works from where the gateway was started.
 */
export function cliCommand(ctx: Pick<CliInvocationContext, 'env' | 'cwd'>): string | null {
  if (onPath(ctx.env.PATH ?? '')) return 'switchyard';
  const rel = relative(ROOT, ctx.cwd);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return 'npx switchyard';
  return null;
}

/**
 * A `switchyard` on the operator's PATH that is this launcher (the image's link, a global
 * install). The folders npm adds for a script or npx (node_modules/.bin) are not the shell's.
 */
function onPath(path: string): boolean {
  let launcher: string;
  try {
    launcher = realpathSync(LAUNCHER);
  } catch {
    return false;
  }
  for (const dir of path.split(delimiter)) {
    if (dir === '' || dir.split(/[\\/]/).includes('node_modules')) continue;
    const candidate = join(dir, 'switchyard');
    try {
      if (existsSync(candidate) && realpathSync(candidate) === launcher) return true;
    } catch {
      // a dangling link: not this launcher
    }
  }
  return false;
}

/** A word as a POSIX shell reads it: quoted only when it needs to be. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
