import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.ts';
import { roleOf } from '../../auth/roles.ts';
import { MAX_ALLOWED_MODELS } from '../../billing/member-input.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { formatNanos, nanosToNumber } from '../../money/money.ts';
import type { AuditActor } from '../../store/audit-records.ts';
import { BUDGET_RESETS, MEMBER_ROLES, type MemberRecord } from '../../store/member-store.ts';
import { access, requestAuth } from '../route-access.ts';
import { actorOf, objectBody } from './admin/admin-common.ts';
import { findAccount, type FindAccountDeps } from './admin/accounts-routes.ts';
import { bodySchema, routeSchema } from './admin/route-schema.ts';
import type { LinkMailer } from '../dashboard/email-sign-in-routes.ts';
import type { MemberService, RemovedKeys } from '../../billing/member-service.ts';

/** What members-routes.ts uses of the services (handed out by build-app.ts). */
export type MembersRoutesDeps = FindAccountDeps & {
  members: MemberService;
  /** The gateway's link mailer (dashboard/email-sign-in-routes.ts), or null without `smtp:`. */
  mailer: LinkMailer | null;
};

// An account's members (docs/governance.md): /members with a management key or a session
// (scoped to the caller's account; reading needs `viewer`, changing needs `admin`, and only
// an owner adds, changes or removes an owner), and /admin/accounts/{id}/members for the
// operator, on any account.

const FIELDS = {
  email: { type: 'string', maxLength: 254, description: 'An email address (unique in the account, case-insensitive).' },
  name: { type: 'string', minLength: 1, maxLength: 256, description: 'Display name (default: the part of the email before @).' },
  role: { type: 'string', enum: [...MEMBER_ROLES], description: 'owner, admin, member (default) or viewer.' },
  allowed_models: {
    type: ['array', 'null'],
    maxItems: MAX_ALLOWED_MODELS,
    items: { type: 'string' },
    description: "Model ids and globs (`anthropic/*`); null: the account's. Enforced by the allowlists.",
  },
  budget: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['amount'],
    properties: { amount: { type: ['string', 'number'], description: 'USD.' }, reset: { type: 'string', enum: [...BUDGET_RESETS] } },
    description:
      "{amount, reset}; null: none. What the member's keys may spend together per UTC window (reset none: their whole usage), enforced before the upstream call beside the account's budget (docs/budgets.md).",
  },
};
const ID = { id: 'The member id (mem_...).' };
const REMOVE_QUERY = {
  keys: "What becomes of the member's keys: disable or reassign (required).",
  to: 'With keys=reassign: the member (mem_...) who gets them.',
};

type Params = Record<string, string>;
const tags = ['members'];
const adminTags = ['admin: members'];
const SCHEMA = {
  list: (t: string[], p?: Params) =>
    routeSchema({
      summary: "The account's members, oldest first",
      tags: t,
      ...(p === undefined ? {} : { params: p }),
      response: '{data: [member]}',
      answers: 'MemberList',
    }),
  add: (t: string[], p?: Params) =>
    routeSchema({
      summary: 'Add (invite) a member; with SMTP configured, they can sign in by an emailed link',
      tags: t,
      ...(p === undefined ? {} : { params: p }),
      status: 201,
      response: '{data: member}',
      answers: 'MemberAnswer',
      body: bodySchema(FIELDS, { required: ['email'] }),
    }),
  one: (t: string[], p: Params = {}) =>
    routeSchema({ summary: 'One member', tags: t, params: { ...p, ...ID }, response: '{data: member}', answers: 'MemberAnswer' }),
  update: (t: string[], p: Params = {}) =>
    routeSchema({
      summary: "Change a member's name, role, allowed models or budget",
      tags: t,
      params: { ...p, ...ID },
      response: '{data: member}',
      answers: 'MemberAnswer',
      body: bodySchema(
        { name: FIELDS.name, role: FIELDS.role, allowed_models: FIELDS.allowed_models, budget: FIELDS.budget },
        { atLeastOne: true },
      ),
    }),
  remove: (t: string[], p: Params = {}) =>
    routeSchema({
      summary: 'Remove a member: their sessions end; their keys are disabled or reassigned (keys=disable|reassign&to=mem_...)',
      tags: t,
      params: { ...p, ...ID },
      query: REMOVE_QUERY,
      response: '{deleted: true, keys, to, key_hashes}',
      answers: 'MemberRemoved',
    }),
};

export function memberView(m: MemberRecord): Record<string, unknown> {
  return {
    id: m.id,
    account_id: m.accountId,
    email: m.email,
    name: m.name,
    role: m.role,
    allowed_models: m.allowedModels,
    budget:
      m.budget === null
        ? null
        : { amount: nanosToNumber(m.budget.amountNanos), amount_usd: formatNanos(m.budget.amountNanos), reset: m.budget.reset },
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

/** `keys=disable|reassign&to=`: required, the admin's choice. */
function removedKeys(q: Record<string, string | undefined>): RemovedKeys {
  if (q.keys === 'disable') {
    if (q.to !== undefined) throw new GatewayError('invalid_parameter', '"to" goes with keys=reassign only.', { param: 'to' });
    return { action: 'disable' };
  }
  if (q.keys === 'reassign') {
    if (q.to === undefined || q.to === '')
      throw new GatewayError('missing_parameter', 'keys=reassign needs "to": the member (mem_...) who gets the keys.', { param: 'to' });
    return { action: 'reassign', to: q.to };
  }
  throw new GatewayError(
    q.keys === undefined ? 'missing_parameter' : 'invalid_parameter',
    '"keys": say what becomes of the member\'s keys: keys=disable, or keys=reassign&to=<member id>.',
    { param: 'keys' },
  );
}

function removedView(out: { keys: string[]; action: RemovedKeys['action']; to: string | null }): Record<string, unknown> {
  return { deleted: true, keys: out.action, to: out.to, key_hashes: out.keys };
}

/**
 * An admin manages members below owner: adding, changing or removing an owner, or making
 * one, is the owner's (a management key of no member acts as owner; the operator is above).
 */
function checkReach(auth: AuthContext, target: { role: string } | null, newRole: unknown): void {
  const role = roleOf(auth);
  if (role === 'owner' || role === 'operator') return;
  if (target?.role === 'owner' || newRole === 'owner') {
    throw new GatewayError('forbidden', 'Only an owner adds, changes or removes an owner; an admin manages the members below owner.');
  }
}

export function registerMemberRoutes(app: FastifyInstance, deps: MembersRoutesDeps, prefix: string): void {
  const reader = access('management', { role: 'viewer' });
  const changer = access('management', { role: 'admin' });
  const member = async (auth: AuthContext, id: string): Promise<MemberRecord> => deps.members.find(auth.account.id, id);
  const id = (request: FastifyRequest): string => (request.params as { id: string }).id;
  // With `smtp:`, a new member is mailed a sign-in link (the invitation).
  const invite = async (m: MemberRecord, request: FastifyRequest): Promise<void> => {
    await deps.mailer?.(m.email, [m], (line) => request.log.warn(line));
  };

  app.get(`${prefix}/members`, { ...reader, schema: SCHEMA.list(tags) }, async (request) => {
    const auth = requestAuth(request);
    return { data: (await deps.members.list(auth.account.id)).map(memberView) };
  });

  app.post(`${prefix}/members`, { ...changer, schema: SCHEMA.add(tags) }, async (request, reply) => {
    const auth = requestAuth(request);
    const body = objectBody(request.body);
    checkReach(auth, null, body.role);
    const m = await deps.members.add(actorOf(auth), auth.account.id, body);
    await invite(m, request);
    reply.code(201);
    return { data: memberView(m) };
  });

  app.get(`${prefix}/members/:id`, { ...reader, schema: SCHEMA.one(tags) }, async (request) => {
    const auth = requestAuth(request);
    return { data: memberView(await member(auth, id(request))) };
  });

  app.patch(`${prefix}/members/:id`, { ...changer, schema: SCHEMA.update(tags) }, async (request) => {
    const auth = requestAuth(request);
    const m = await member(auth, id(request));
    const body = objectBody(request.body);
    checkReach(auth, m, body.role);
    return { data: memberView(await deps.members.update(actorOf(auth), m, body)) };
  });

  app.delete(`${prefix}/members/:id`, { ...changer, schema: SCHEMA.remove(tags) }, async (request) => {
    const auth = requestAuth(request);
    const m = await member(auth, id(request));
    checkReach(auth, m, undefined);
    if (auth.member?.id === m.id) throw new GatewayError('forbidden', 'You cannot remove yourself; ask another admin or the owner.');
    return removedView(await deps.members.remove(actorOf(auth), m, removedKeys(request.query as Record<string, string | undefined>)));
  });

  // The operator's: any account.
  const base = `${prefix}/admin/accounts/:account/members`;
  const adminAccess = access('admin');
  const operator = (request: FastifyRequest): AuditActor => actorOf(requestAuth(request));
  const account = async (request: FastifyRequest): Promise<string> =>
    (await findAccount(deps, (request.params as { account: string }).account)).id;
  const acct = { account: 'The account id.' };

  app.get(base, { ...adminAccess, schema: SCHEMA.list(adminTags, acct) }, async (request) => {
    return { data: (await deps.members.list(await account(request))).map(memberView) };
  });
  app.post(base, { ...adminAccess, schema: SCHEMA.add(adminTags, acct) }, async (request, reply) => {
    const m = await deps.members.add(operator(request), await account(request), objectBody(request.body));
    await invite(m, request);
    reply.code(201);
    return { data: memberView(m) };
  });
  app.get(`${base}/:id`, { ...adminAccess, schema: SCHEMA.one(adminTags, acct) }, async (request) => {
    return { data: memberView(await deps.members.find(await account(request), id(request))) };
  });
  app.patch(`${base}/:id`, { ...adminAccess, schema: SCHEMA.update(adminTags, acct) }, async (request) => {
    const m = await deps.members.find(await account(request), id(request));
    return { data: memberView(await deps.members.update(operator(request), m, objectBody(request.body))) };
  });
  app.delete(`${base}/:id`, { ...adminAccess, schema: SCHEMA.remove(adminTags, acct) }, async (request) => {
    const m = await deps.members.find(await account(request), id(request));
    return removedView(await deps.members.remove(operator(request), m, removedKeys(request.query as Record<string, string | undefined>)));
  });
}
