import { at, checkKeys, optBoolean, optInt, optString, readInt, readMapping, readString } from './read-fields.ts';

/**
 * `smtp:` — the mail server the gateway sends members' one-time sign-in links through
 * (docs/configuration.md, docs/governance.md). Absent: no emailed sign-in; the dashboard
 * signs in with management keys only. `password` may be a `${ENV}` reference.
 */
export interface SmtpConfig {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  password: string | null;
  /** The From address of the sign-in mails. */
  from: string;
  /** How long a link works (default 15 minutes). */
  linkTtlSeconds: number;
}

export function parseSmtp(value: unknown, path: string): SmtpConfig | null {
  if (value === undefined || value === null) return null;
  const fields = readMapping(value, path);
  checkKeys(fields, ['host', 'port', 'secure', 'user', 'password', 'from', 'link_ttl_seconds'], path);
  const secure = optBoolean(fields, 'secure', path) ?? false;
  return {
    host: readString(fields.host, at(path, 'host')),
    port: fields.port === undefined ? (secure ? 465 : 587) : readInt(fields.port, at(path, 'port'), 1, 65_535),
    secure,
    user: optString(fields, 'user', path) ?? null,
    password: optString(fields, 'password', path) ?? null,
    from: readString(fields.from, at(path, 'from')),
    linkTtlSeconds: optInt(fields, 'link_ttl_seconds', path, 60, 86_400) ?? 900,
  };
}
