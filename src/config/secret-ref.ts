import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';

// A secret given by reference: `env:NAME` (an environment variable) or `file:/path` (a file's
// content, trimmed of surrounding whitespace). One function, so a general resolver (issue 25
// §3, secrets by reference) can replace it. Errors name the reference, never a value.

type Env = Record<string, string | undefined>;

export function isSecretRef(text: string): boolean {
  return /^env:[A-Za-z_][A-Za-z0-9_]*$/.test(text) || /^file:.+$/.test(text);
}

/** The secret a reference names; throws a ConfigError at `path` naming the reference when it is missing or empty. */
export function resolveSecretRef(ref: string, path: string, env: Env = process.env): string {
  if (ref.startsWith('env:')) {
    const name = ref.slice(4);
    const value = env[name];
    if (value === undefined || value.trim() === '') throw new ConfigError(path, `the environment variable ${name} (${ref}) is not set`);
    return value.trim();
  }
  if (ref.startsWith('file:')) {
    const file = ref.slice(5);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(path, `cannot read ${ref}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    if (text.trim() === '') throw new ConfigError(path, `${ref} is empty`);
    return text.trim();
  }
  throw new ConfigError(path, 'expected a reference, "env:NAME" or "file:/path"');
}
