// The dashboard's HTTP client: every call goes to the gateway's own API with the session
// cookie (sent by the browser) and, for a state-changing call, the session's CSRF token.
// A 401 means the session ended: the app returns to sign-in.

/** The gateway's base path: what precedes /dashboard in this page's URL. */
export const BASE = location.pathname.slice(0, Math.max(0, location.pathname.indexOf('/dashboard')));
export const API = `${BASE}/api/v1`;

let csrfToken = '';
let onUnauthorized: () => void = () => {};

export function setCsrfToken(token: string): void {
  csrfToken = token;
}
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`${API}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = errorOf(json);
    const apiError = new ApiError(res.status, err.code ?? String(res.status), err.message ?? `HTTP ${res.status}`);
    if (res.status === 401 && path !== '/dashboard/session') onUnauthorized();
    throw apiError;
  }
  return json as T;
}

/** The `error` object of an error answer, as far as it has one. */
function errorOf(json: unknown): { code?: string; message?: string } {
  const err = typeof json === 'object' && json !== null && 'error' in json ? json.error : undefined;
  if (typeof err !== 'object' || err === null) return {};
  const { code, message } = err as Record<string, unknown>;
  const text = (v: unknown): string | undefined => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
  const codeText = text(code);
  const messageText = text(message);
  return { ...(codeText === undefined ? {} : { code: codeText }), ...(messageText === undefined ? {} : { message: messageText }) };
}

/** A query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}
