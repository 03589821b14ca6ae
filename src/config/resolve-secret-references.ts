import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ConfigError } from './config-error.ts';

// Secrets by reference (docs/configuration.md, "Secret references"): a secret field of the
// config may hold `env:NAME` (that environment variable) or `file:/abs/path` (that file's
// text, trailing newline and blanks trimmed: the shape of Docker and Kubernetes secrets)
// instead of the secret itself. A reference is resolved every time the config is loaded,
// so a reload (SIGHUP, `switchyard reload`) reads a rotated file again. Errors name the
// field and the reference (the variable's name, the file's path), never a value.
//
// One resolver for every secret: a section that takes a secret either lists its field in
// SECRET_FIELDS (resolved on the YAML tree before any parser sees it) or calls
// resolveSecret itself.

type Env = Record<string, string | undefined>;

/**
 * The fields whose values are secrets, as paths in the YAML tree: `[]` stands for every
 * item of a list, `*` for every key of a mapping. A field added later that holds a secret
 * (an OIDC client secret, an SMTP password) adds its path here. Not `byok.master_key`: the
 * configuration keeps that reference itself (never the key), resolved at start by
 * server/build-byok.ts, since the sealed keys are bound to it (a change needs a restart).
 */
export const SECRET_FIELDS: readonly string[] = [
  'providers[].api_key',
  'providers[].api_keys[].key',
  'providers[].headers.*',
  'database.url',
  'database.password',
  'redis.url',
  'redis.password',
  'moderation.upstream.api_key',
  'metrics.token',
  'oidc.client_secret',
  'smtp.password',
];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A secret file larger than this is a mistake (a wrong path), not a key. */
const MAX_FILE_BYTES = 64 * 1024;

/** Whether a field's value is a reference rather than the secret itself. */
export function isSecretReference(value: unknown): value is string {
  return typeof value === 'string' && (value.startsWith('env:') || value.startsWith('file:'));
}

/**
 * The secret a field's value stands for: `env:NAME` → the variable's value, `file:/path` →
 * the file's text (trailing whitespace trimmed); anything else is the secret itself. An
 * unset or empty variable, a missing, unreadable or empty file is a ConfigError at `path`
 * naming the reference.
 */
export function resolveSecret(value: string, path: string, env: Env): string {
  if (value.startsWith('env:')) return fromEnv(value.slice(4), path, env);
  if (value.startsWith('file:')) return fromFile(value.slice(5), path);
  return value;
}

/** The same as resolveSecret for an optional field: undefined and null pass through. */
export function resolveOptionalSecret(value: unknown, path: string, env: Env): unknown {
  return typeof value === 'string' ? resolveSecret(value, path, env) : value;
}

/** The YAML tree with every SECRET_FIELDS reference resolved (a copy: the input is left alone). */
export function resolveSecretFields(tree: unknown, env: Env, fields: readonly string[] = SECRET_FIELDS): unknown {
  let out = tree;
  for (const field of fields) out = resolveAt(out, splitPattern(field), '', env);
  return out;
}

function fromEnv(name: string, path: string, env: Env): string {
  if (!ENV_NAME.test(name))
    throw new ConfigError(path, `"env:${name}" is not a valid environment reference (use env:NAME, letters, digits and '_')`);
  const value = env[name];
  if (value === undefined || value === '')
    throw new ConfigError(path, `the environment variable ${name} (from env:${name}) is not set or empty`);
  return value;
}

function fromFile(file: string, path: string): string {
  if (!isAbsolute(file)) throw new ConfigError(path, `"file:${file}" must name an absolute path (file:/run/secrets/name)`);
  let text: string;
  try {
    const buffer = readFileSync(file);
    if (buffer.length > MAX_FILE_BYTES)
      throw new ConfigError(path, `the secret file ${file} is larger than ${MAX_FILE_BYTES / 1024} KiB (the wrong file?)`);
    text = buffer.toString('utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${code ?? 'error'})`;
    throw new ConfigError(path, `the secret file ${file} (from file:${file}) ${why}`);
  }
  const secret = text.trimEnd();
  if (secret === '') throw new ConfigError(path, `the secret file ${file} (from file:${file}) is empty`);
  return secret;
}

type Step = { list: true } | { key: string } | { anyKey: true };

function splitPattern(pattern: string): Step[] {
  const steps: Step[] = [];
  for (const part of pattern.split('.')) {
    const name = part.replace(/\[\]/g, '');
    steps.push(name === '*' ? { anyKey: true } : { key: name });
    for (let i = 0; i < (part.length - name.length) / 2; i++) steps.push({ list: true });
  }
  return steps;
}

function resolveAt(node: unknown, steps: Step[], path: string, env: Env): unknown {
  if (steps.length === 0) return isSecretReference(node) ? resolveSecret(node, path, env) : node;
  const [step, ...rest] = steps as [Step, ...Step[]];
  if ('list' in step) {
    if (!Array.isArray(node)) return node;
    return node.map((item, i) => resolveAt(item, rest, `${path}[${i}]`, env));
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const map = node as Record<string, unknown>;
  const keys = 'key' in step ? (Object.hasOwn(map, step.key) ? [step.key] : []) : Object.keys(map);
  if (keys.length === 0) return node;
  const out = { ...map };
  for (const k of keys) out[k] = resolveAt(map[k], rest, path === '' ? k : `${path}.${k}`, env);
  return out;
}
