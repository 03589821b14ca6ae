import { ConfigError } from './config-error.ts';
import { at, optInt, optString, type Fields } from './read-fields.ts';
import type { ServerConfig } from './types.ts';

/**
 * The defaults of `server:`. The limits and timeouts bound what a client can make the
 * gateway hold before anything is known of it (docs/security.md): a body is refused past
 * `bodyLimitBytes`, a request must arrive whole within `requestTimeoutMs` (its headers
 * within `headersTimeoutMs`), a connection that sends nothing for `idleTimeoutMs` while a
 * request is being received is closed, and an idle keep-alive connection after
 * `keepAliveTimeoutMs`. None of them applies while an answer is produced or streamed:
 * `timeouts.request_ms` bounds that.
 */
export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  /** Base64 images and PDFs are large. */
  bodyLimitBytes: 32 * 1024 * 1024,
  /** A 32 MiB body at ~2.3 Mbit/s still arrives in time. */
  requestTimeoutMs: 120_000,
  headersTimeoutMs: 30_000,
  /** Longer than the 60 s idle timeout of common load balancers, so they close first. */
  keepAliveTimeoutMs: 65_000,
  idleTimeoutMs: 60_000,
  /** Images answered as URLs are served for an hour (as OpenAI's own URLs are)... */
  imageUrlTtlSeconds: 3600,
  /** ...and held in memory up to 256 MiB per process, the oldest dropped first past it. */
  imageUrlMaxBytes: 256 * 1024 * 1024,
} as const;

export const SERVER_KEYS = [
  'host',
  'port',
  'base_path',
  'trust_proxy',
  'public_origin',
  'body_limit_bytes',
  'request_timeout_ms',
  'headers_timeout_ms',
  'keep_alive_timeout_ms',
  'idle_timeout_ms',
  'image_url_ttl_seconds',
  'image_url_max_bytes',
] as const;

/** `server:` after env and flag overrides of host and port. */
export function parseServer(fields: Fields, overrides: { host?: string | undefined; port?: number | undefined }): ServerConfig {
  const path = 'server';
  const server: ServerConfig = {
    host: overrides.host ?? optString(fields, 'host', path) ?? SERVER_DEFAULTS.host,
    port: overrides.port ?? optInt(fields, 'port', path, 0, 65535) ?? SERVER_DEFAULTS.port,
    bodyLimitBytes: optInt(fields, 'body_limit_bytes', path, 1024) ?? SERVER_DEFAULTS.bodyLimitBytes,
    requestTimeoutMs: optInt(fields, 'request_timeout_ms', path, 1) ?? SERVER_DEFAULTS.requestTimeoutMs,
    headersTimeoutMs: optInt(fields, 'headers_timeout_ms', path, 1) ?? SERVER_DEFAULTS.headersTimeoutMs,
    keepAliveTimeoutMs: optInt(fields, 'keep_alive_timeout_ms', path, 1) ?? SERVER_DEFAULTS.keepAliveTimeoutMs,
    idleTimeoutMs: optInt(fields, 'idle_timeout_ms', path, 1) ?? SERVER_DEFAULTS.idleTimeoutMs,
    imageUrlTtlSeconds: optInt(fields, 'image_url_ttl_seconds', path, 1, 7 * 86_400) ?? SERVER_DEFAULTS.imageUrlTtlSeconds,
    imageUrlMaxBytes: optInt(fields, 'image_url_max_bytes', path, 0) ?? SERVER_DEFAULTS.imageUrlMaxBytes,
  };
  const basePath = readBasePath(optString(fields, 'base_path', path));
  if (basePath !== '') server.basePath = basePath;
  const trustProxy = optString(fields, 'trust_proxy', path);
  if (trustProxy !== undefined && trustProxy.trim() !== '') server.trustProxy = trustProxy.trim();
  const publicOrigin = readOrigin(optString(fields, 'public_origin', path));
  if (publicOrigin !== undefined) server.publicOrigin = publicOrigin;
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (server.headersTimeoutMs > server.requestTimeoutMs) {
    throw new ConfigError(at(path, 'headers_timeout_ms'), `must not exceed server.request_timeout_ms (${server.requestTimeoutMs})`);
  }
  return server;
}

/** `public_origin`: scheme, host and optional port (`https://gw.example.com`), nothing else; kept as the URL's origin. */
function readOrigin(v: string | undefined): string | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    throw new ConfigError(at('server', 'public_origin'), `must be an origin such as https://gw.example.com (got "${v}")`);
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new ConfigError(
      at('server', 'public_origin'),
      `must be an origin such as https://gw.example.com: a scheme (http or https), a host and a port, no path (got "${v}")`,
    );
  }
  return url.origin;
}

/** `base_path`: '' (none) or '/segment[/segment...]' without a trailing slash. */
function readBasePath(v: string | undefined): string {
  if (v === undefined || v === '' || v === '/') return '';
  const trimmed = v.endsWith('/') ? v.slice(0, -1) : v;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed))
    throw new ConfigError(at('server', 'base_path'), 'must be a path such as /gw (letters, digits, . _ ~ - between slashes)');
  return trimmed;
}
