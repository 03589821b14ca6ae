import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../../../auth/authenticate.ts';
import { requestAuth } from '../../route-access.ts';
import { checkName } from '../../../billing/account-input.ts';
import { catalogModelId, nearestModelId } from '../../../catalog/model-name.ts';
import { formatNanos, nanosToNumber } from '../../../money/money.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { AuditActor } from '../../../store/audit-records.ts';
import type { UsageFigures } from '../../../store/usage-records.ts';
import type { InForce } from '../../wiring/in-force.ts';

/** What admin-common.ts uses of the services (handed out by build-app.ts). */
export interface AdminCommonDeps {
  inForce: Pick<InForce, 'catalog'>;
}

// What the admin routes and the account-scoped reporting routes share: who may call them,
// paging, date ranges, and the money fields (a JSON number as the rest of the API has it,
// and the exact decimal text).

/**
 * The admin key (or its session) the route's `access('admin')` declaration authenticated
 * before the body was read (src/server/route-access.ts).
 */
export async function requireAdmin(request: FastifyRequest): Promise<AuthContext> {
  const auth = requestAuth(request);
  if (!auth.key.isAdmin) throw new Error(`${request.routeOptions.url}: requireAdmin on a route not declared access('admin')`);
  return auth;
}

/** The management key (or its session) of `access('management')`: its own account's reports (usage, activity, ledger). */
export async function requireManager(request: FastifyRequest): Promise<AuthContext> {
  const auth = requestAuth(request);
  if (!auth.key.isManagement) throw new Error(`${request.routeOptions.url}: requireManager on a route not declared access('management')`);
  return auth;
}

/**
 * Who made a change, for the audit log: the key (or its session), named with the member who
 * holds it or signed in (`member:<id>` is a member's sign-in, which has no key).
 */
export function actorOf(auth: AuthContext): AuditActor {
  const member = auth.member;
  const label = member == null || auth.key.hash.startsWith('member:') ? auth.key.label : `${auth.key.label} (member ${member.email})`;
  return { keyHash: auth.key.hash, label, accountId: auth.account.id };
}

export type Query = Record<string, string | undefined>;

export function queryOf(request: FastifyRequest): Query {
  return (request.query ?? {}) as Query;
}

export function paramsOf(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

/** A row the route found a moment ago (an update's answer); a 404 if a concurrent request deleted it meanwhile. */
export function stillThere<T>(row: T | undefined | null, what: string): T {
  if (row === undefined || row === null) throw new GatewayError('not_found', `${what} is gone (deleted meanwhile).`);
  return row;
}

/** A path parameter of the route (Fastify fills every one the path declares; a 404 if a route asks for another). */
export function paramOf(request: FastifyRequest, name: string): string {
  const value = (request.params as Record<string, string | undefined>)[name];
  if (value === undefined) throw new GatewayError('not_found', `No such route or resource (no "${name}" in the path).`);
  return value;
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** `limit`: 1..200, default 50. */
export function pageSize(q: Query): number {
  if (q.limit === undefined) return DEFAULT_PAGE;
  const n = Number(q.limit);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) {
    throw new GatewayError('invalid_parameter', `"limit" must be an integer from 1 to ${MAX_PAGE}.`, { param: 'limit' });
  }
  return n;
}

/** Cursors are opaque to clients: base64url JSON of the last record's sort key. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(q: Query, check: (v: unknown) => v is T): T | null {
  if (q.cursor === undefined || q.cursor === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(q.cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!check(value)) throw new GatewayError('invalid_parameter', '"cursor" is not a cursor this endpoint returned.', { param: 'cursor' });
  return value;
}

export function isTimeIdCursor(v: unknown): v is [string, string] {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';
}

export function isIdCursor(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}

/** A page: the records, and the cursor of the next page (null on the last). */
export function page<T>(data: T[], limit: number, cursorOf: (last: T) => unknown): { data: T[]; next_cursor: string | null } {
  const more = data.length > limit;
  const rows = more ? data.slice(0, limit) : data;
  const last = rows.at(-1);
  return { data: rows, next_cursor: more && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** `from`/`to`: UTC days (YYYY-MM-DD), inclusive; default the last 30 days, today included. At most 366 days. */
export function dayRange(q: Query, now = Date.now()): { from: string; to: string } {
  const today = new Date(now).toISOString().slice(0, 10);
  const to = readDay(q.to, 'to') ?? today;
  const from = readDay(q.from, 'from') ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
  if (from > to) throw new GatewayError('invalid_parameter', '"from" must not be after "to".', { param: 'from' });
  if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS)
    throw new GatewayError('invalid_parameter', 'A range spans at most 366 days.', { param: 'from' });
  return { from, to };
}

function readDay(v: string | undefined, name: string): string | null {
  if (v === undefined || v === '') return null;
  if (!DAY_RE.test(v) || Number.isNaN(Date.parse(v)) || new Date(v).toISOString().slice(0, 10) !== v) {
    throw new GatewayError('invalid_parameter', `"${name}" must be a day, YYYY-MM-DD (UTC).`, { param: name });
  }
  return v;
}

/** An ISO 8601 date-time filter bound, normalized to the stored form. */
export function readInstant(v: string | undefined, name: string): string | undefined {
  if (v === undefined || v === '') return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new GatewayError('invalid_parameter', `"${name}" must be an ISO 8601 date-time.`, { param: name });
  return new Date(t).toISOString();
}

/** Money as the API shows it: a USD number (`<name>`) and the exact decimal text (`<name>_usd`). */
export function money(name: string, nanos: bigint): Record<string, number | string> {
  return { [name]: nanosToNumber(nanos), [`${name}_usd`]: formatNanos(nanos) };
}

export function figuresView(f: UsageFigures): Record<string, unknown> {
  return {
    requests: f.requests,
    errors: f.errors,
    tokens_prompt: f.tokensPrompt,
    tokens_completion: f.tokensCompletion,
    tokens_cache_read: f.tokensCacheRead,
    tokens_cache_write: f.tokensCacheWrite,
    tokens_reasoning: f.tokensReasoning,
    ...money('cost', f.costNanos),
    avg_latency_ms: f.latencyCount === 0 ? null : Math.round(f.latencyMsSum / f.latencyCount),
  };
}

export function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** A USD amount the route's schema admitted (decimal text or a number) as text; undefined when absent or null. */
export function usdText(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  throw new GatewayError('invalid_parameter', `"${name}" must be a USD amount as decimal text.`, { param: name });
}

export function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '')
    throw new GatewayError('invalid_parameter', `"${name}" must be a non-empty string.`, { param: name });
  return v.trim();
}

/** An account's default model: the catalog id the name resolves to; a name no model serves is refused (400 model_not_found, with the nearest id). */
export function defaultModelOf(deps: AdminCommonDeps, name: string): string {
  const id = catalogModelId(deps.inForce.catalog, name);
  if (id !== undefined) return id;
  const near = nearestModelId(deps.inForce.catalog, name);
  throw new GatewayError(
    'model_not_found',
    `"default_model": no model "${name}" is served by this gateway.${near === undefined ? '' : ` Did you mean "${near}"?`} (GET /models lists them.)`,
    { param: 'default_model' },
  );
}

/** A `name` to rename to: a non-empty string of at most MAX_NAME_CHARS characters (account-input.ts), or undefined when absent. */
export function optionalName(body: Record<string, unknown>): string | undefined {
  const name = optionalString(body, 'name');
  return name === undefined ? undefined : checkName(name);
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const v = optionalString(body, name);
  if (v === undefined) throw new GatewayError('missing_parameter', `Missing required parameter: "${name}".`, { param: name });
  return v;
}
