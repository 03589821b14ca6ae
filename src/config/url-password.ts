import { ConfigError } from './config-error.ts';

/**
 * `url` with its password set to `password` (percent-encoded), the user kept: how
 * `database.password` and `redis.password` (often `file:/run/secrets/...`) join the URL
 * they go with. The error names the field, never the URL (it may hold a password).
 */
export function withUrlPassword(url: string, password: string, path: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(path, 'the URL it goes with cannot be parsed (expected scheme://user@host:port/...)');
  }
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
