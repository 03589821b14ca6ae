import type { KeyRecord } from '../store/account-records.ts';
import type { MemberRecord, MemberRole } from '../store/member-store.ts';
import type { AuthContext } from './authenticate.ts';

// Who a caller is on the management API (docs/governance.md): a member acts with their role;
// a management key that belongs to no member, and its dashboard session, act as the account's
// owner (as before members existed); the operator's admin keys stand above every account.

export type Role = MemberRole | 'operator';

const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4, operator: 5 };

/** The caller's role. */
export function roleOf(ctx: AuthContext): Role {
  if (ctx.key.isAdmin) return 'operator';
  return ctx.member?.role ?? 'owner';
}

/** The caller's role is `min` or above. */
export function hasRole(ctx: AuthContext, min: Role): boolean {
  return RANK[roleOf(ctx)] >= RANK[min];
}

/** Only the member's own keys: a caller whose role is `member` manages and sees no one else's. */
export function ownKeysOnly(ctx: AuthContext): boolean {
  return ctx.member !== undefined && ctx.member !== null && ctx.member.role === 'member';
}

/** The prefix of a member's session's key hash: a member's sign-in has no key of its own. */
export const MEMBER_SESSION_PREFIX = 'member:';

/**
 * The key a member's session acts as: no key of the account, a management-API credential
 * (model routes refuse it as they refuse management keys), named after the member.
 */
export function memberSessionKey(m: MemberRecord): KeyRecord {
  return {
    hash: MEMBER_SESSION_PREFIX + m.id,
    accountId: m.accountId,
    name: m.email,
    label: `member ${m.email}`,
    limitNanos: null,
    limitReset: null,
    usageNanos: 0n,
    isActive: true,
    isManagement: true,
    isAdmin: false,
    expiresAt: null,
    createdAt: m.createdAt,
    updatedAt: null,
    lastUsed: null,
    disabledBy: null,
    isPlayground: false,
    memberId: m.id,
    allowlist: null,
    maxInFlight: null,
  };
}
