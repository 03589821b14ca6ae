import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { extractBearer, type AuthContext, type Authenticator } from '../../auth/authenticate.ts';
import { isWellFormedApiKey } from '../../auth/api-key.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { bodySchema, routeSchema } from '../routes/admin/route-schema.ts';
import { csrfTokenOf, isSessionToken, type SessionStore } from './session-store.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { checkOrigin, sessionCookieName, sessionCookieOptions } from './session-cookie.ts';
import { access } from '../route-access.ts';
import { MEMBER_SESSION_PREFIX, roleOf } from '../../auth/roles.ts';
import { OIDC_START_PATH } from './oidc-routes.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { ByokKeys } from '../../auth/byok-keys.ts';

/** What session-routes.ts uses of the services (handed out by build-app.ts). */
export interface SessionRoutesDeps {
  inForce: Pick<InForce, 'config'>;
  auth: Authenticator;
  sessions: SessionStore;
  byok: ByokKeys;
  cli: { readonly invocation: string; readonly command: string };
}

// Sign-in and sessions of the dashboard: a management key (an account's scope) or an admin
// key (the operator's) is exchanged for a session cookie (httpOnly, SameSite=Strict, Secure
// over https, expiring). From then on the dashboard's API calls carry the cookie and a CSRF
// header; the cookie hook (session-cookie-auth.ts) turns them into the session token the
// authenticator resolves to the key, so the session acts as its key on the existing routes.

export const SESSION_TTL_MS = 12 * 3_600_000;
export const SESSION_PATH = '/api/v1/dashboard/session';
/** A sign-in body holds one key: anything longer is refused (413) before it is read. */
export const SIGN_IN_MAX_BODY_BYTES = 4096;

export function registerSessionRoutes(app: FastifyInstance, deps: SessionRoutesDeps): void {
  const basePath = deps.inForce.config.server.basePath ?? '';
  const limiter = new SignInLimiter();
  const publicOrigin = deps.inForce.config.server.publicOrigin;
  const cookieOptions = (request: FastifyRequest) => sessionCookieOptions(request, basePath);

  const tags = ['dashboard sessions'];
  // Sign-in takes a key in a small body: the limiter and the Origin check run before a byte of it is read.
  const signIn = access('none', {
    maxBodyBytes: SIGN_IN_MAX_BODY_BYTES,
    beforeBody: (request) => {
      checkOrigin(request, publicOrigin);
      limiter.take(request.ip);
    },
    note: 'takes a key in its body (at most 4 KiB); rate-limited per address before the body is read',
  });
  app.post(
    SESSION_PATH,
    {
      ...signIn,
      schema: routeSchema({
        summary: 'Sign in to the dashboard: a management or admin key for a session cookie (rate-limited per address)',
        tags,
        body: bodySchema(
          { key: { type: 'string', maxLength: 256, description: 'A management or admin key (sk-sy-v1-...).' } },
          { required: ['key'] },
        ),
        response: '{kind, key_label, account: {id, name}, csrf_token, expires_at} and Set-Cookie',
        answers: 'DashboardSession',
      }),
    },
    async (request, reply) => {
      let auth: AuthContext;
      try {
        auth = await signInKey(deps, request.body);
      } catch (err) {
        // A wrong, unknown or unfit key counts against the address; a success never clears it.
        if (err instanceof GatewayError && (err.code === 'authentication_required' || err.code === 'forbidden')) limiter.failed(request.ip);
        throw err;
      }
      const session = await deps.sessions.create(auth.key.hash, SESSION_TTL_MS);
      reply.header(
        'set-cookie',
        app.serializeCookie(sessionCookieName(request), session.token, { ...cookieOptions(request), expires: session.expiresAt }),
      );
      reply.header('cache-control', 'no-store');
      return sessionView(auth, session.token, session.expiresAt.toISOString(), deps.byok.enabled);
    },
  );

  // The cookie hook has put the session token in Authorization (after its CSRF check for DELETE).
  // Not signed in (no cookie, or a session that has ended) is an answer here, not an error.
  app.get(
    SESSION_PATH,
    {
      ...access('none', { note: 'reads the session cookie when present' }),
      schema: routeSchema({
        summary: 'The dashboard session of the cookie, with its CSRF token',
        tags,
        response: '{signed_in, kind, key_label, account, csrf_token}; signed out: {signed_in: false, email_sign_in, sso}',
        answers: 'DashboardSession',
      }),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const token = extractBearer(request.headers.authorization);
      const oidc = deps.inForce.config.oidc;
      const signedOut = {
        signed_in: false,
        email_sign_in: deps.inForce.config.smtp !== null,
        sso: oidc === null ? null : { name: oidc.name, url: `${basePath}${OIDC_START_PATH}` },
      };
      if (token === undefined || !isSessionToken(token)) return signedOut;
      let auth: AuthContext;
      try {
        auth = await deps.auth.authenticate(token);
      } catch (err) {
        if (err instanceof GatewayError && err.code === 'authentication_required') return signedOut;
        throw err;
      }
      return sessionView(auth, token, null, deps.byok.enabled);
    },
  );

  app.delete(
    SESSION_PATH,
    {
      ...access('session'),
      schema: routeSchema({
        summary: 'Sign out: ends the session and clears its cookie (X-CSRF-Token required)',
        tags,
        response: '{signed_out: true}',
        answers: 'SignedOut',
      }),
    },
    async (request, reply) => {
      const token = sessionTokenOf(request);
      await deps.sessions.revoke(token);
      reply.header('set-cookie', app.serializeCookie(sessionCookieName(request), '', { ...cookieOptions(request), expires: new Date(0) }));
      return { signed_out: true };
    },
  );
}

/** The management or admin key a sign-in body names, authenticated. */
async function signInKey(deps: SessionRoutesDeps, body: unknown): Promise<AuthContext> {
  const key = body !== null && typeof body === 'object' ? (body as { key?: unknown }).key : undefined;
  if (typeof key !== 'string' || !isWellFormedApiKey(key.trim())) {
    throw new GatewayError('authentication_required', 'Sign in with a management key or an admin key (sk-sy-v1-...).');
  }
  const auth = await deps.auth.authenticate(key.trim());
  if (!auth.key.isManagement && !auth.key.isAdmin) {
    // The next step, whoever pastes it: the operator (a newcomer with the first start's key) runs the command; anyone else asks them.
    throw new GatewayError(
      'forbidden',
      'This is an API key: it calls models and cannot sign in. Sign in with a management key of its account ' +
        `(or with an admin key). The operator makes one on the gateway's machine, printed once: ${deps.cli.command} keys create --account ${auth.account.id} --name dashboard --management`,
    );
  }
  return auth;
}

function sessionTokenOf(request: FastifyRequest): string {
  const token = extractBearer(request.headers.authorization);
  if (token === undefined || !isSessionToken(token)) throw new GatewayError('authentication_required', 'Not signed in to the dashboard.');
  return token;
}

/**
 * A session as the dashboard sees it: a member's sign-in is `kind: member`; `role` is what the caller may do (auth/roles.ts);
 * `byokEnabled`: whether the gateway has a master key (the Settings page offers accounts' own provider keys only then).
 */
export function sessionView(auth: AuthContext, token: string, expiresAt: string | null, byokEnabled: boolean): Record<string, unknown> {
  const member = auth.member ?? null;
  return {
    signed_in: true,
    kind: auth.key.isAdmin ? 'admin' : auth.key.hash.startsWith(MEMBER_SESSION_PREFIX) ? 'member' : 'management',
    role: roleOf(auth),
    member: member === null ? null : { id: member.id, email: member.email, name: member.name },
    key_label: auth.key.label,
    account: { id: auth.account.id, name: auth.account.name },
    csrf_token: csrfTokenOf(token),
    byok_enabled: byokEnabled,
    ...(expiresAt === null ? {} : { expires_at: expiresAt }),
  };
}

export type { FastifyReply };
