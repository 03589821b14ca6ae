import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identityOf } from '../../auth/oidc-claims.ts';
import { OidcClient } from '../../auth/oidc-client.ts';
import type { OidcConfig } from '../../config/parse-oidc.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { MemberRecord } from '../../store/member-store.ts';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { MemberService } from '../../billing/member-service.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { SessionStore } from './session-store.ts';
import { access } from '../route-access.ts';
import { actorOf } from '../routes/admin/admin-common.ts';
import { routeSchema } from '../routes/admin/route-schema.ts';
import { sessionCookieName, sessionCookieOptions } from './session-cookie.ts';
import { SESSION_TTL_MS } from './session-routes.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { continuePage, signInErrorPage } from './sign-in-error-page.ts';
import { securityHeaders } from './serve-dashboard.ts';

// Single sign-on to the dashboard through an OpenID Connect provider (`oidc:`,
// docs/governance.md "Single sign-on"). GET .../oidc/start sends the browser to the provider
// with a new state, nonce and PKCE challenge; the state's hash, the nonce and the verifier
// stay in the database (sso_logins, ten minutes), and the state alone in a short-lived
// httpOnly cookie that binds the sign-in to this browser. The provider sends the browser
// back to GET .../oidc/callback: the cookie must name the query's state, the row is taken
// once (a replayed state is refused, on every instance of a fleet), the code is exchanged
// and the ID token verified (auth/oidc-client.ts); then the email's domain and the claim →
// account and role mapping (auth/oidc-claims.ts), the member found or created just in time
// (MemberService.ensureMember), a session made as the emailed link's, the sign-in audited.
//
// SameSite: the session cookie is SameSite=Strict, and the callback is a navigation from the
// provider's site. The browser stores the cookie (a top-level navigation may set it) but
// does not send it on a redirect that continues that cross-site navigation. The callback
// therefore answers with a page of its own origin that moves on to the dashboard: a
// same-site navigation, which carries the cookie. (A 303 would do for today's dashboard,
// whose API calls are same-site, but its page would be fetched without the session;
// test/browser/dashboard-sso.test.ts checks the page's request carries it.)

export const OIDC_START_PATH = '/api/v1/sessions/oidc/start';
export const OIDC_CALLBACK_PATH = '/api/v1/sessions/oidc/callback';
/** The cookie that binds a sign-in to the browser that began it. */
export const OIDC_STATE_COOKIE = 'sy_oidc_state';
/** How long a sign-in may take at the provider. */
export const OIDC_LOGIN_TTL_MS = 10 * 60_000;

const sha256 = (v: string): string => createHash('sha256').update(v).digest('hex');

/** What oidc-routes.ts uses of the services (handed out by build-app.ts). */
export interface OidcRoutesDeps {
  inForce: Pick<InForce, 'config'>;
  stores: Pick<Stores, 'sso' | 'accounts' | 'members' | 'audit'>;
  sessions: SessionStore;
  auth: Authenticator;
  members: MemberService;
  now: () => number;
}

export function registerOidcRoutes(app: FastifyInstance, deps: OidcRoutesDeps): void {
  const client = new OidcClient();
  const basePath = deps.inForce.config.server.basePath ?? '';
  // Per address: starts (each a row) and callbacks apart, so a sign-in counts once against each; failures bound guessing at the callback.
  const starts = new SignInLimiter();
  const limiter = new SignInLimiter();
  const tags = ['dashboard sessions'];
  const stateCookie = (request: FastifyRequest, expires: Date) => ({
    path: `${basePath}${OIDC_CALLBACK_PATH}`,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    expires,
  });
  const guarded = (note: string, bound: SignInLimiter) =>
    access('none', {
      beforeBody: (request) => {
        configured(deps);
        bound.take(request.ip);
      },
      note,
    });

  app.get(
    OIDC_START_PATH,
    {
      ...guarded('redirects to the OIDC provider; rate-limited per address; 404 without `oidc:`', starts),
      schema: routeSchema({
        summary: 'Single sign-on: redirects the browser to the OpenID Connect provider (with `oidc:` configured)',
        tags,
        status: 303,
        response: 'A redirect to the provider (Location), and the state cookie',
      }),
    },
    async (request, reply) => {
      const cfg = configured(deps);
      const { url, checks } = await client.begin(cfg, redirectUri(deps, cfg));
      const now = deps.now();
      await deps.stores.sso.insertLogin(
        {
          stateHash: sha256(checks.state),
          nonce: checks.nonce,
          codeVerifier: checks.codeVerifier,
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + OIDC_LOGIN_TTL_MS).toISOString(),
        },
        new Date(now).toISOString(),
      );
      reply.header(
        'set-cookie',
        app.serializeCookie(OIDC_STATE_COOKIE, checks.state, stateCookie(request, new Date(now + OIDC_LOGIN_TTL_MS))),
      );
      reply.header('cache-control', 'no-store');
      return reply.redirect(url.href, 303);
    },
  );

  app.get(
    OIDC_CALLBACK_PATH,
    {
      ...guarded(
        "the OIDC provider's redirect back: state (single use, bound to the browser's cookie), PKCE and the ID token checked; rate-limited per address",
        limiter,
      ),
      schema: routeSchema({
        summary:
          "Single sign-on: the provider's redirect back (code and state); signs the member in (session cookie) and moves on to the dashboard",
        tags,
        query: {
          code: "The provider's authorization code.",
          state: 'The state the sign-in began with.',
          iss: "The provider's issuer (RFC 9207), when it sends it.",
          error: "The provider's refusal, when it refused.",
          error_description: 'Its description.',
        },
        response: 'An HTML page that opens the dashboard, and Set-Cookie (a client that does not accept text/html gets an error as JSON)',
        produces: { 'text/html': { type: 'string' } },
        // The provider may add parameters of its own (session_state, ...): the query is documented, not checked.
        docsOnly: true,
      }),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // The state cookie has done its work either way.
      reply.header('set-cookie', app.serializeCookie(OIDC_STATE_COOKIE, '', stateCookie(request, new Date(0))));
      try {
        const token = await signIn(deps, client, request);
        reply.header(
          'set-cookie',
          app.serializeCookie(sessionCookieName(request), token.token, {
            ...sessionCookieOptions(request, basePath),
            expires: token.expiresAt,
          }),
        );
        securityHeaders(reply);
        reply.type('text/html; charset=utf-8');
        return continuePage(`${basePath}/dashboard/`);
      } catch (err) {
        if (err instanceof GatewayError && (err.code === 'authentication_required' || err.code === 'forbidden')) limiter.failed(request.ip);
        return answerError(request, reply, err, `${basePath}/dashboard/`);
      }
    },
  );
}

/** The callback's work: checks, identity, member, session, audit. */
async function signIn(deps: OidcRoutesDeps, client: OidcClient, request: FastifyRequest): Promise<{ token: string; expiresAt: Date }> {
  const cfg = configured(deps);
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  const state = query.get('state');
  const cookie = request.cookies[OIDC_STATE_COOKIE];
  if (state === null || state === '' || cookie === undefined || cookie !== state) {
    throw new GatewayError('authentication_required', 'This sign-in was not started in this browser, or it took too long: sign in again.');
  }
  const now = deps.now();
  const checks = await deps.stores.sso.takeLogin(sha256(state), new Date(now).toISOString());
  if (checks === undefined)
    throw new GatewayError('authentication_required', 'This sign-in is unknown, already used or expired: sign in again.');
  const claims = await client.finish(cfg, redirectUri(deps, cfg), query, { state, ...checks });
  const identity = identityOf(cfg, claims);
  const account = await deps.stores.accounts.getAccount(identity.accountId);
  if (account === undefined || !account.isActive) {
    throw new GatewayError(
      'forbidden',
      `The account single sign-on maps this sign-in to (${identity.accountId}) does not exist or is disabled: ask the operator.`,
    );
  }
  const member = await memberOf(deps, cfg, identity);
  const session = await deps.sessions.createForMember(member.id, SESSION_TTL_MS);
  const auth = await deps.auth.authenticate(session.token);
  await deps.stores.audit.record(
    actorOf(auth),
    'session.sso_sign_in',
    member.id,
    {
      account_id: member.accountId,
      email: member.email,
      role: member.role,
      issuer: cfg.issuer,
      subject: identity.subject,
      ip: request.ip,
      user_agent: (request.headers['user-agent'] ?? '').slice(0, 256),
    },
    new Date(now).toISOString(),
  );
  return session;
}

/** The account's member, created on first sign-in when `oidc.jit` allows it. */
async function memberOf(deps: OidcRoutesDeps, cfg: OidcConfig, identity: ReturnType<typeof identityOf>): Promise<MemberRecord> {
  const existing = await deps.stores.members.byEmail(identity.accountId, identity.email);
  if (existing !== undefined) return existing;
  if (!cfg.jit)
    throw new GatewayError(
      'forbidden',
      `${identity.email} is not a member of this account: an admin of the account adds members (oidc.jit is off).`,
    );
  const actor = {
    keyHash: 'sso:oidc',
    label: `single sign-on (${new URL(cfg.issuer).host}, ${identity.email})`,
    accountId: identity.accountId,
  };
  return deps.members.ensureMember(actor, identity.accountId, identity.email, identity.name, identity.role);
}

function configured(deps: OidcRoutesDeps): OidcConfig {
  const cfg = deps.inForce.config.oidc;
  if (cfg === null)
    throw new GatewayError('not_found', 'Single sign-on is not configured on this gateway (no `oidc:` in its configuration).');
  return cfg;
}

/** `oidc.redirect_uri`, else the callback under `server.public_origin` (load-config requires one of them). */
export function redirectUri(deps: OidcRoutesDeps, cfg: OidcConfig): string {
  return (
    cfg.redirectUri ?? `${deps.inForce.config.server.publicOrigin ?? ''}${deps.inForce.config.server.basePath ?? ''}${OIDC_CALLBACK_PATH}`
  );
}

/** A browser gets a page that says what went wrong, with a way back; any other client the error's JSON. */
function answerError(request: FastifyRequest, reply: FastifyReply, err: unknown, dashboard: string): never | string {
  if (!(err instanceof GatewayError) || !(request.headers.accept ?? '').includes('text/html')) throw err;
  securityHeaders(reply);
  reply.code(err.status).type('text/html; charset=utf-8');
  return signInErrorPage(err.message, dashboard);
}
