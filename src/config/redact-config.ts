// The running configuration as the operator's dashboard may show it (GET /admin/config):
// every secret the config can hold replaced by MASK, by structure rather than field by
// field, so that a field added later is covered by the same three rules:
//   1. a field whose name says it holds a secret (SECRET_FIELD) is masked whole, whatever
//      its shape (a provider's `apiKey`, `metrics.token`, a secret-named entry of `options`);
//   2. every value under a map of headers (`headers`) is masked: header values are
//      credentials as often as not (Authorization, x-api-key, a tenant token);
//   3. every other string is scanned for URLs with credentials, wherever they are (the
//      value of `database.url`, `redis.url`, a `base_url`, a URL inside a description):
//      their userinfo (user and password: a user alone is often a token) is masked, and so
//      are the values of secret-named query parameters (`?key=`, `?password=`) and of
//      `name=value` pairs with a secret name (a libpq `password=...`).
// What this cannot know (a secret in a field named like anything else, not in a URL) the
// route's second net catches: the scrubber of every configured upstream credential.

export const MASK = '********';

/** Names (camelCase, snake_case, header-style) of fields whose values are secrets. */
const SECRET_NAME = /(?:key|secret|token|password|passwd|pwd|passphrase|authorization|auth|cookie|credentials?|signature|sig)$/i;
/** Fields whose every value is a secret: maps of HTTP headers. */
const SECRET_MAP = /headers$/i;
/** Field names that end like a secret's but hold none (a file's path is shown: it says which file, not what is in it). */
const NOT_SECRET = new Set(['cacheFamily', 'credentialsFile', 'awsProfile', 'tokenizer']);

/**
 * `scheme://userinfo@`: the userinfo runs to the last `@` before a blank, since a password
 * may hold `@`, `/`, `?` or `#` unescaped (a URL with an `@` in its path loses its host to
 * the mask too: shown less, never more).
 */
const URL_USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)\S*@/g;
/** `name=value` with a secret-looking name, in a query string or a key/value connection string. */
const SECRET_PAIR = /((?:^|[?&;\s])(?:[A-Za-z0-9_.-]*(?:key|secret|token|password|passwd|pwd|auth|signature|sig|credential))=)[^&;\s#]*/gi;

/** The config (or any JSON-like part of it) with every secret masked; bigints as decimal text, RegExps as their source. */
export function redactConfig(value: unknown): unknown {
  return redact(value, false);
}

/** A string with the credentials of any URL in it masked, and secret-named `name=value` pairs. */
export function redactUrls(text: string): string {
  if (!text.includes('=') && !text.includes('@')) return text;
  return text.replace(URL_USERINFO, `$1${MASK}@`).replace(SECRET_PAIR, `$1${MASK}`);
}

function redact(value: unknown, secret: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => redact(v, secret));
  if (value instanceof RegExp) return secret ? MASK : value.source;
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redact(v, secret || isSecretField(k));
    return out;
  }
  if (secret) return MASK;
  if (typeof value === 'string') return redactUrls(value);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function isSecretField(name: string): boolean {
  if (NOT_SECRET.has(name)) return false;
  return SECRET_NAME.test(name) || SECRET_MAP.test(name);
}
