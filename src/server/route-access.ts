import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { extractBearer, type AuthContext, type Authenticator, type KeyHeaders } from '../auth/authenticate.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { isSessionToken } from './dashboard/session-store.ts';
import { hasRole, roleOf, type Role } from '../auth/roles.ts';

// Every route declares how a caller proves who they are (its `RouteAccess`, in the route's
// `config.access`), and one `onRequest` hook on the root instance enforces it from the
// headers alone, before a byte of the body is read: a missing or wrong credential is a 401
// or 403, a body longer than the route takes (Content-Length) a 413, and in each case
// the connection is closed rather than the body read (connection-guards.ts). A route that
// declares nothing is refused at start (`app.ready()` fails) and, should one slip through,
// answered 500 at request time: an undeclared route is never served. docs/security.md's
// table of routes is generated from these declarations (`describeRoutes`).

/**
 * How a route authenticates:
 * - `none`: no credential (probes, the public model list, the OpenAPI document, the
 *   dashboard's files, the dashboard sign-in, which takes a key in its small body);
 * - `model-key`: an API key of an account that calls models (a management or admin key is
 *   refused with 403), read by the dialect's rule;
 * - `key`: any valid key (API, management or admin) or a dashboard session;
 * - `management`: a management key of an account, or a dashboard session made from one;
 * - `admin`: an admin key (the operator's), or a dashboard session made from one;
 * - `session`: a dashboard session (its cookie);
 * - `metrics-token`: `metrics.token` as a bearer token when one is configured, else none.
 */
export type AuthKind = 'none' | 'model-key' | 'key' | 'management' | 'admin' | 'session' | 'metrics-token';

export const AUTH_KINDS: Record<AuthKind, string> = {
  none: 'none',
  'model-key': 'API key (model calls; management and admin keys refused)',
  key: 'any key or dashboard session',
  management: 'management key or its dashboard session',
  admin: 'admin key or its dashboard session',
  session: 'dashboard session cookie',
  'metrics-token': '`metrics.token` when set, else none',
};

/**
 * Reads the credential from the headers (a dialect's rule; Bearer by default), or from the
 * query of `url` (the request's path and query as received: Gemini's `?key=`).
 */
export type KeyReader = (headers: IncomingHttpHeaders, url: string) => string | undefined;

export interface RouteAccess {
  auth: AuthKind;
  /** Where the key is read (default `Authorization: Bearer`). */
  readKey?: KeyReader;
  /** The headers a 401 names. */
  keyHeaders?: KeyHeaders;
  /**
   * The largest body the route reads: bytes, or `server` for `server.body_limit_bytes`
   * (model calls). Default: none (0) for GET, HEAD and DELETE, SMALL_BODY_BYTES otherwise
   * (the management and admin APIs' JSON). A larger Content-Length is a 413 before anything
   * else; a chunked body is cut off at the same size.
   */
  maxBodyBytes?: number | 'server';
  /**
   * Runs after authentication and before the body is read: refusals that need only the
   * headers and the key (the sign-in limiter, a key that cannot pay).
   */
  beforeBody?: (request: FastifyRequest, auth: AuthContext | null) => void | Promise<void>;
  /**
   * Told of each refusal the hook makes once it knows the key (a key of the wrong kind, a
   * body too large, a `beforeBody` refusal): the model routes count them per key and reason.
   */
  onRefused?: (auth: AuthContext, error: GatewayError) => void;
  /** For `metrics-token`: the token's check (true: let through). */
  checkToken?: (presented: string | undefined) => boolean;
  /**
   * The least role of the account's people that may call it (auth/roles.ts; docs/governance.md):
   * required on every `management` route (the start fails without it), optional on `session`.
   * A management key of no member, and its session, act as `owner`.
   */
  role?: Role;
  /** The 403's message for a key of the wrong kind (`management`, `admin`). */
  denied?: string;
  /** For the docs' route table: what the route is for, when the auth kind alone does not say. */
  note?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** Route options that declare a route's access: `app.get(path, { ...access('admin'), schema }, handler)`. */
export function access(auth: AuthKind, more: Omit<RouteAccess, 'auth'> = {}): { config: { access: RouteAccess } } {
  return { config: { access: { auth, ...more } } };
}

/** The body limit of a route that takes JSON settings (management, admin): far above any real one. */
export const SMALL_BODY_BYTES = 64 * 1024;

const authOf = new WeakMap<FastifyRequest, AuthContext>();

/** The identity the access hook established for this request (routes that authenticate). */
export function requestAuth(request: FastifyRequest): AuthContext {
  const ctx = authOf.get(request);
  if (ctx === undefined)
    throw new Error(`route ${request.method} ${request.routeOptions.url} used requestAuth without declaring an authenticated access`);
  return ctx;
}

export interface DeclaredRoute {
  method: string;
  url: string;
  access: RouteAccess | undefined;
}

const declaredRoutes = new WeakMap<FastifyInstance, DeclaredRoute[]>();

/** Every route registered on `app` (after `installRouteAccess`) with its declaration. */
export function describeRoutes(app: FastifyInstance): readonly DeclaredRoute[] {
  return declaredRoutes.get(app) ?? [];
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/** The body limit a declaration gives a method (bytes). */
export function bodyLimitOf(declared: RouteAccess, method: string, serverLimit: number): number {
  if (declared.maxBodyBytes === 'server') return serverLimit;
  if (declared.maxBodyBytes !== undefined) return Math.min(declared.maxBodyBytes, serverLimit);
  return BODYLESS.has(method) ? 0 : Math.min(SMALL_BODY_BYTES, serverLimit);
}

/**
 * Installs the declaration check (every route registered after this call must declare
 * its access; `ready()` fails otherwise) and the one `onRequest` hook that enforces it.
 * Call on the root instance, after the hooks that must run first (the connection guards,
 * the session cookie → token hook).
 */
export function installRouteAccess(app: FastifyInstance, auth: Authenticator, serverBodyLimit: number): void {
  const routes: { options: RouteOptions; method: string }[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    for (const method of methods) routes.push({ options: route, method });
    // Fastify's own limit (a chunked body is cut off as it grows past it) is the declared one.
    const declared = route.config?.access;
    if (declared !== undefined) route.bodyLimit = Math.max(1, ...methods.map((m) => bodyLimitOf(declared, m, serverBodyLimit)));
  });
  app.addHook('onReady', async () => {
    const list: DeclaredRoute[] = routes.map((r) => ({ method: r.method, url: r.options.url, access: r.options.config?.access }));
    declaredRoutes.set(app, list);
    const missing = list.filter((r) => r.access === undefined);
    if (missing.length > 0) {
      throw new Error(
        `Routes without a declared access (config.access, src/server/route-access.ts): ${missing.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
    // Every management route names the least role that may call it: the role table is these declarations.
    const roleless = list.filter((r) => r.access?.auth === 'management' && r.access.role === undefined);
    if (roleless.length > 0) {
      throw new Error(
        `Management routes without a declared role (access('management', {role}), src/server/route-access.ts): ${roleless.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
  });

  // A callback hook, not an async one: a key already in the authenticator's cache (nearly
  // every model call) is checked with no promise at all; only a cache miss, a session or a
  // `beforeBody` that waits takes the promise lane.
  app.addHook('onRequest', (request, _reply, done) => {
    const declared = request.routeOptions.config.access;
    if (declared === undefined) {
      if (request.is404) return done(); // the not-found answer (connection-guards.ts)
      return done(new GatewayError('internal_error', 'This route declares no access; it is not served.'));
    }
    let known: AuthContext | null | undefined;
    try {
      known = authenticateIfKnown(auth, declared, request);
    } catch (err) {
      return done(err as Error);
    }
    if (known !== undefined) return admit(declared, known, request, serverBodyLimit, done);
    authenticate(auth, declared, request).then(
      (ctx) => admit(declared, ctx, request, serverBodyLimit, done),
      (err: unknown) => done(err as Error),
    );
  });
}

/** The checks after authentication, before the body: the key's kind and role, the body's size, `beforeBody`. */
function admit(
  declared: RouteAccess,
  ctx: AuthContext | null,
  request: FastifyRequest,
  serverBodyLimit: number,
  done: (err?: Error) => void,
): void {
  const refused = (err: unknown): void => {
    if (ctx !== null && err instanceof GatewayError) declared.onRefused?.(ctx, err);
    done(err as Error);
  };
  try {
    if (ctx !== null) {
      authOf.set(request, ctx);
      checkKind(declared, ctx);
    }
    const limit = bodyLimitOf(declared, request.method, serverBodyLimit);
    const length = contentLength(request.headers);
    if (length > limit || (limit === 0 && request.headers['transfer-encoding'] !== undefined)) {
      throw new GatewayError(
        'request_too_large',
        limit === 0
          ? `${request.method} ${request.routeOptions.url} takes no request body.`
          : `The request body is larger than this route accepts (${limit} bytes).`,
      );
    }
    const waiting = declared.beforeBody?.(request, ctx);
    if (waiting instanceof Promise) {
      waiting.then(() => done(), refused);
      return;
    }
  } catch (err) {
    refused(err);
    return;
  }
  done();
}

/**
 * The caller's identity when it is known without waiting: null for a route that takes no
 * key (or a metrics token that checks out), the context of a cached key, or undefined when
 * the store must be read (`authenticate`). Throws the refusals it can already make.
 */
function authenticateIfKnown(auth: Authenticator, declared: RouteAccess, request: FastifyRequest): AuthContext | null | undefined {
  switch (declared.auth) {
    case 'none':
      return null;
    case 'metrics-token':
      checkMetricsToken(declared, request);
      return null;
    case 'session':
      return undefined;
    case 'model-key':
    case 'key':
    case 'management':
    case 'admin':
      return auth.authenticateIfCached((declared.readKey ?? bearerOf)(request.headers, request.url), declared.keyHeaders);
  }
}

function contentLength(headers: IncomingHttpHeaders): number {
  const v = headers['content-length'];
  if (v === undefined) return 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : Number.POSITIVE_INFINITY;
}

async function authenticate(auth: Authenticator, declared: RouteAccess, request: FastifyRequest): Promise<AuthContext | null> {
  const readKey = declared.readKey ?? bearerOf;
  switch (declared.auth) {
    case 'none':
      return null;
    case 'metrics-token':
      checkMetricsToken(declared, request);
      return null;
    case 'session': {
      const token = readKey(request.headers, request.url);
      if (token === undefined) throw new GatewayError('authentication_required', 'Not signed in to the dashboard.');
      const ctx = await auth.authenticate(token, declared.keyHeaders);
      // A valid key is not a session: the wrong kind of credential for this route.
      if (!isSessionToken(token))
        throw new GatewayError('forbidden', 'This route is for a dashboard session (sign in at /dashboard); a key cannot use it.');
      return ctx;
    }
    case 'model-key':
    case 'key':
    case 'management':
    case 'admin':
      return auth.authenticate(readKey(request.headers, request.url), declared.keyHeaders);
  }
}

function checkMetricsToken(declared: RouteAccess, request: FastifyRequest): void {
  if (declared.checkToken !== undefined && !declared.checkToken((declared.readKey ?? bearerOf)(request.headers, request.url))) {
    throw new GatewayError(
      'authentication_required',
      `${request.routeOptions.url} needs the metrics token: Authorization: Bearer <metrics.token>.`,
    );
  }
}

/** A valid key of the wrong kind for the route: 403. */
function checkKind(declared: RouteAccess, ctx: AuthContext): void {
  const key = ctx.key;
  switch (declared.auth) {
    case 'model-key':
      if (key.isManagement)
        throw new GatewayError('forbidden', 'A management key manages keys; it cannot call models. Use an API key of the account.');
      if (key.isAdmin)
        throw new GatewayError('forbidden', 'An admin key is for the admin API; it cannot call models. Use an API key of an account.');
      return;
    case 'management':
      if (!key.isManagement) throw new GatewayError('forbidden', declared.denied ?? 'This endpoint needs a management key of the account.');
      checkRole(declared, ctx);
      return;
    case 'session':
      checkRole(declared, ctx);
      return;
    case 'admin':
      if (!key.isAdmin)
        throw new GatewayError('forbidden', declared.denied ?? 'The admin API needs an admin key (switchyard keys create --admin).');
      return;
    default:
      return;
  }
}

/** The caller's role is below the route's: 403 naming both. */
function checkRole(declared: RouteAccess, ctx: AuthContext): void {
  if (declared.role === undefined || hasRole(ctx, declared.role)) return;
  throw new GatewayError(
    'forbidden',
    `This needs the ${declared.role} role or above in the account; you are ${roleOf(ctx) === 'operator' ? 'the operator' : `a ${roleOf(ctx)}`}.`,
  );
}

function bearerOf(headers: IncomingHttpHeaders): string | undefined {
  return extractBearer(headers.authorization);
}
