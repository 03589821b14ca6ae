import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { checkEmail } from '../../billing/member-input.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { access } from '../route-access.ts';
import { bodySchema, routeSchema } from '../routes/admin/route-schema.ts';
import { checkOrigin, sessionCookieName, sessionCookieOptions } from './session-cookie.ts';
import { SESSION_TTL_MS, sessionView, SIGN_IN_MAX_BODY_BYTES } from './session-routes.ts';
import { SignInLimiter } from './sign-in-limiter.ts';
import { smtpSender, type SendSignInMail } from './sign-in-mailer.ts';
import type { MemberRecord } from '../../store/member-store.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { Authenticator } from '../../auth/authenticate.ts';
import type { SessionStore } from './session-store.ts';
import type { ByokKeys } from '../../auth/byok-keys.ts';

/** What email-sign-in-routes.ts uses of the services (handed out by build-app.ts). */
export interface EmailSignInRoutesDeps {
  /** The gateway's one link mailer (linkMailer), or null without `smtp:`. */
  mailer: LinkMailer | null;
  stores: Pick<Stores, 'members'>;
  inForce: Pick<InForce, 'config'>;
  auth: Authenticator;
  sessions: SessionStore;
  byok: ByokKeys;
  now: () => number;
}

/** What the link mailer reads: the SMTP settings and public origin (read at start: a change takes a restart), the accounts, the members' link tokens. */
export interface LinkMailerDeps {
  stores: Pick<Stores, 'accounts' | 'members'>;
  inForce: Pick<InForce, 'config'>;
  now: () => number;
}

// Members sign in by an emailed one-time link when the operator configured `smtp:`
// (docs/governance.md). POST /sessions/email {email} mails a link to every account the email
// is a member of, and answers the same whether or not it is one (the mail goes out off the
// answer's path). The link opens the dashboard, whose page posts its token to
// /sessions/email/redeem (an Origin-checked POST, so neither a mail scanner's GET nor another
// site can use it): used once, within `smtp.link_ttl_seconds`, for a session cookie acting as
// the member (their role). Only the token's SHA-256 is stored. Without `smtp:` both routes
// answer 404.

export const EMAIL_SIGN_IN_PATH = '/api/v1/sessions/email';
export const LINK_REDEEM_PATH = '/api/v1/sessions/email/redeem';
/** The dashboard's fragment that carries a link's token (never sent to a server). */
export const LINK_FRAGMENT = 'sign-in-link=';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Links mailed per email address per window: a bound on mail sent to one person. */
export const LINKS_PER_EMAIL = 5;
const EMAIL_WINDOW_MS = 15 * 60_000;

const sha256 = (v: string): string => createHash('sha256').update(v).digest('hex');

/** Mails sign-in links to members (one mail, one link per membership); null without `smtp:`. */
export type LinkMailer = (email: string, members: readonly MemberRecord[], log: (m: string) => void) => Promise<void>;

/** The gateway's link mailer (one SMTP transport: build it once per gateway, build-app.ts), or null without `smtp:`. */
export function linkMailer(deps: LinkMailerDeps): LinkMailer | null {
  const smtp = deps.inForce.config.smtp;
  const send: SendSignInMail | null = smtp === null ? null : smtpSender(smtp);
  const mailer: LinkMailer | null =
    send === null
      ? null
      : async (email, members, log) => {
          const links: Array<{ account: string; url: string }> = [];
          const now = deps.now();
          const ttlMs = smtp!.linkTtlSeconds * 1000;
          for (const m of members) {
            const account = await deps.stores.accounts.getAccount(m.accountId);
            if (account === undefined || !account.isActive) continue;
            const token = randomBytes(32).toString('base64url');
            await deps.stores.members.insertLink(
              {
                tokenHash: sha256(token),
                memberId: m.id,
                createdAt: new Date(now).toISOString(),
                expiresAt: new Date(now + ttlMs).toISOString(),
                usedAt: null,
              },
              new Date(now).toISOString(),
            );
            // server.public_origin (load-config requires it with smtp:): a Host header cannot steer where the token goes.
            links.push({
              account: account.name,
              url: `${deps.inForce.config.server.publicOrigin!}${deps.inForce.config.server.basePath ?? ''}/dashboard/#${LINK_FRAGMENT}${token}`,
            });
          }
          // Off the answer's path: a member and a stranger get the same answer in the same time.
          if (links.length > 0)
            void send({ to: email, links, minutes: Math.round(ttlMs / 60_000) }).catch((err: Error) =>
              log(`sign-in mail to a member not sent: ${err.message}`),
            );
        };
  return mailer;
}

export function registerEmailSignInRoutes(app: FastifyInstance, deps: EmailSignInRoutesDeps): void {
  const { mailer } = deps;
  const basePath = deps.inForce.config.server.basePath ?? '';
  const publicOrigin = deps.inForce.config.server.publicOrigin;
  const limiter = new SignInLimiter();
  const perEmail = new SignInLimiter({ maxAttempts: LINKS_PER_EMAIL, windowMs: EMAIL_WINDOW_MS });
  const tags = ['dashboard sessions'];
  const guarded = (note: string) =>
    access('none', {
      maxBodyBytes: SIGN_IN_MAX_BODY_BYTES,
      beforeBody: (request) => {
        if (mailer === null) throw notConfigured();
        checkOrigin(request, publicOrigin);
        limiter.take(request.ip);
      },
      note,
    });

  app.post(
    EMAIL_SIGN_IN_PATH,
    {
      ...guarded('takes an email; rate-limited per address and per email; 404 without `smtp:`'),
      schema: routeSchema({
        summary: 'Mail a one-time sign-in link to a member (with `smtp:` configured); the same answer whether or not the email is a member',
        tags,
        status: 202,
        body: bodySchema({ email: { type: 'string', maxLength: 254, description: "A member's email address." } }, { required: ['email'] }),
        response: '{sent: true}',
        answers: 'Sent',
      }),
    },
    async (request, reply) => {
      const email = checkEmail((request.body as { email: unknown }).email);
      perEmail.take(email.toLowerCase());
      await mailer!(email, await deps.stores.members.withEmail(email), (m) => request.log.warn(m));
      reply.code(202);
      return { sent: true };
    },
  );

  app.post(
    LINK_REDEEM_PATH,
    {
      ...guarded('takes a one-time link token; rate-limited per address; 404 without `smtp:`'),
      schema: routeSchema({
        summary: 'Sign in with an emailed one-time link: its token for a session cookie acting as the member (the link works once)',
        tags,
        body: bodySchema(
          { token: { type: 'string', maxLength: 64, description: "The token of the link's `#sign-in-link=` fragment." } },
          { required: ['token'] },
        ),
        response: '{kind: member, role, member, account, csrf_token, expires_at} and Set-Cookie',
        answers: 'DashboardSession',
      }),
    },
    async (request, reply) => {
      const token = (request.body as { token: string }).token;
      const memberId = TOKEN_SHAPE.test(token)
        ? await deps.stores.members.redeemLink(sha256(token), new Date(deps.now()).toISOString())
        : undefined;
      if (memberId === undefined) {
        limiter.failed(request.ip);
        throw new GatewayError('authentication_required', 'This sign-in link is unknown, already used or expired: ask for a new one.');
      }
      const session = await deps.sessions.createForMember(memberId, SESSION_TTL_MS);
      const auth = await deps.auth.authenticate(session.token);
      reply.header(
        'set-cookie',
        app.serializeCookie(sessionCookieName(request), session.token, {
          ...sessionCookieOptions(request, basePath),
          expires: session.expiresAt,
        }),
      );
      reply.header('cache-control', 'no-store');
      return sessionView(auth, session.token, session.expiresAt.toISOString(), deps.byok.enabled);
    },
  );
}

function notConfigured(): GatewayError {
  return new GatewayError(
    'not_found',
    'Email sign-in is not configured on this gateway (no `smtp:` in its configuration): sign in with a management key.',
  );
}
