import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.ts';
import { formatNanos } from '../money/money.ts';
import type { AuditActor } from '../store/audit-records.ts';
import type { MemberPatch, MemberRecord, MemberRole } from '../store/member-store.ts';
import type { Stores } from '../store/store-contract.ts';
import { checkAllowedModels, checkBudget, checkEmail, checkMemberName, checkRole } from './member-input.ts';

// An account's members (docs/governance.md): adding, changing and removing them, each
// change audited in its transaction, then announced (caches drop: a role change takes effect
// at once) and emitted to the account's webhooks (`member.added`, `member.removed`). Shared
// by the management API, the admin API, the CLI and the sign-ins that create members on
// first use (`ensureMember`, for SSO).

/** What becomes of a removed member's keys: disabled, or moved to another member of the account. */
export type RemovedKeys = { action: 'disable' } | { action: 'reassign'; to: string };

export interface MemberServiceHooks {
  /** An account's members changed: caches of who may do what drop (here and across a fleet). */
  changed(accountId: string): void;
  /** A key was disabled: its cached state and credit snapshot drop. */
  keyChanged(accountId: string, keyHash: string): void;
  emit(accountId: string, type: 'member.added' | 'member.removed', data: Record<string, unknown>): Promise<void>;
}

export class MemberService {
  private readonly stores: Stores;
  private readonly hooks: MemberServiceHooks;
  private readonly now: () => Date;

  constructor(stores: Stores, hooks: MemberServiceHooks, now: () => Date = () => new Date()) {
    this.stores = stores;
    this.hooks = hooks;
    this.now = now;
  }

  async list(accountId: string): Promise<MemberRecord[]> {
    return this.stores.members.list(accountId);
  }

  /** The account's member `id`, or a 404. */
  async find(accountId: string, id: string): Promise<MemberRecord> {
    const m = await this.stores.members.get(id);
    if (m === undefined || m.accountId !== accountId) throw new GatewayError('not_found', `No member "${id}" in this account.`);
    return m;
  }

  /** Validates and adds a member; an email the account already has is refused (400 naming `email`). */
  async add(
    actor: AuditActor,
    accountId: string,
    raw: { email?: unknown; name?: unknown; role?: unknown; allowed_models?: unknown; budget?: unknown },
  ): Promise<MemberRecord> {
    const email = checkEmail(raw.email);
    const name = raw.name === undefined ? email.split('@')[0]! : checkMemberName(raw.name);
    const role = raw.role === undefined ? 'member' : checkRole(raw.role);
    const allowedModels = raw.allowed_models === undefined ? null : checkAllowedModels(raw.allowed_models);
    const budget = raw.budget === undefined ? null : checkBudget(raw.budget);
    const member = await this.stores.exclusive(`members:${accountId}`, async (tx) => {
      if ((await tx.accounts.getAccount(accountId)) === undefined) throw new GatewayError('not_found', `No account "${accountId}".`);
      if ((await tx.members.byEmail(accountId, email)) !== undefined) {
        throw new GatewayError('invalid_parameter', `"email": ${email} is already a member of this account.`, { param: 'email' });
      }
      const m: MemberRecord = {
        id: `mem_${randomBytes(9).toString('base64url')}`,
        accountId,
        email,
        name,
        role,
        allowedModels,
        budget,
        createdAt: this.now().toISOString(),
        updatedAt: null,
      };
      await tx.members.create(m);
      await tx.sso.clearRemoved(accountId, email);
      await tx.audit.record(actor, 'member.add', m.id, { account_id: accountId, ...memberDetails(m) }, m.createdAt);
      return m;
    });
    this.hooks.changed(accountId);
    await this.hooks.emit(accountId, 'member.added', { member: memberEvent(member) });
    return member;
  }

  /**
   * The account's member with this email, created with `name` and `role` on first use (an
   * SSO sign-in's just-in-time creation). An existing member keeps their name and role. A
   * member removed from the account is not created again (403) until an admin adds them.
   */
  async ensureMember(actor: AuditActor, accountId: string, email: string, name: string, role: MemberRole): Promise<MemberRecord> {
    const existing = await this.stores.members.byEmail(accountId, checkEmail(email));
    if (existing !== undefined) return existing;
    if (await this.stores.sso.isRemoved(accountId, email)) {
      throw new GatewayError('forbidden', `${email} was removed from this account: an admin of the account can add them again.`);
    }
    try {
      return await this.add(actor, accountId, { email, name, role });
    } catch (err) {
      // Two first sign-ins at once: the other one created it.
      const now = await this.stores.members.byEmail(accountId, email);
      if (now !== undefined) return now;
      throw err;
    }
  }

  /** Changes a member's name, role, allowed models or budget; undefined fields are kept. */
  async update(
    actor: AuditActor,
    member: MemberRecord,
    raw: { name?: unknown; role?: unknown; allowed_models?: unknown; budget?: unknown },
  ): Promise<MemberRecord> {
    const patch: MemberPatch = {};
    if (raw.name !== undefined) patch.name = checkMemberName(raw.name);
    if (raw.role !== undefined) patch.role = checkRole(raw.role);
    if (raw.allowed_models !== undefined) patch.allowedModels = checkAllowedModels(raw.allowed_models);
    if (raw.budget !== undefined) patch.budget = checkBudget(raw.budget);
    if (Object.keys(patch).length === 0)
      throw new GatewayError('missing_parameter', 'Give at least one of "name", "role", "allowed_models", "budget".');
    const updated = await this.stores.transaction(async (tx) => {
      const at = this.now().toISOString();
      const out = await tx.members.update(member.id, patch, at);
      if (out === undefined) throw new GatewayError('not_found', `No member "${member.id}".`);
      await tx.audit.record(
        actor,
        'member.update',
        member.id,
        {
          account_id: member.accountId,
          email: member.email,
          ...(patch.role !== undefined && patch.role !== member.role ? { role_before: member.role } : {}),
          ...changedDetails(patch),
        },
        at,
      );
      return out;
    });
    this.hooks.changed(member.accountId);
    return updated;
  }

  /**
   * Removes a member: their sign-ins' sessions end, and their keys are disabled or moved to
   * another member of the account (the caller's choice), all in one transaction.
   */
  async remove(
    actor: AuditActor,
    member: MemberRecord,
    keys: RemovedKeys,
  ): Promise<{ keys: string[]; action: RemovedKeys['action']; to: string | null }> {
    let to: MemberRecord | null = null;
    if (keys.action === 'reassign') {
      if (keys.to === member.id)
        throw new GatewayError('invalid_parameter', '"to": the keys cannot be given to the member being removed.', { param: 'to' });
      const target = await this.stores.members.get(keys.to);
      if (target === undefined || target.accountId !== member.accountId)
        throw new GatewayError('invalid_parameter', `"to": no member "${keys.to}" in this account.`, { param: 'to' });
      to = target;
    }
    const hashes = await this.stores.transaction(async (tx) => {
      const at = this.now().toISOString();
      let moved: string[];
      if (to !== null) {
        moved = await tx.members.reassignKeys(member.id, to.id);
        for (const h of moved)
          await tx.audit.record(actor, 'key.reassign', h, { account_id: member.accountId, from_member: member.id, to_member: to.id }, at);
      } else {
        moved = await tx.members.keyHashes(member.id);
        for (const h of moved) {
          await tx.accounts.setKeyActive(h, false, 'account');
          await tx.members.setKeyMember(h, null);
          await tx.audit.record(actor, 'key.disable', h, { account_id: member.accountId, member_removed: member.id }, at);
        }
      }
      await tx.members.revokeSessions(member.id, at);
      await tx.members.remove(member.id);
      await tx.sso.markRemoved(member.accountId, member.email, at);
      await tx.audit.record(
        actor,
        'member.remove',
        member.id,
        {
          account_id: member.accountId,
          email: member.email,
          role: member.role,
          keys: keys.action,
          ...(to === null ? {} : { to: to.id }),
          key_count: moved.length,
        },
        at,
      );
      return moved;
    });
    for (const h of hashes) this.hooks.keyChanged(member.accountId, h);
    this.hooks.changed(member.accountId);
    await this.hooks.emit(member.accountId, 'member.removed', {
      member: memberEvent(member),
      keys: keys.action,
      ...(to === null ? {} : { to: to.id }),
      key_count: hashes.length,
    });
    return { keys: hashes, action: keys.action, to: to?.id ?? null };
  }
}

/** A member in an event's data. */
export function memberEvent(m: MemberRecord): Record<string, unknown> {
  return { id: m.id, account_id: m.accountId, email: m.email, name: m.name, role: m.role };
}

function memberDetails(m: MemberRecord): Record<string, unknown> {
  return {
    email: m.email,
    name: m.name,
    role: m.role,
    allowed_models: m.allowedModels,
    budget: m.budget === null ? null : { amount: formatNanos(m.budget.amountNanos), reset: m.budget.reset },
  };
}

function changedDetails(p: MemberPatch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.name !== undefined) out.name = p.name;
  if (p.role !== undefined) out.role = p.role;
  if (p.allowedModels !== undefined) out.allowed_models = p.allowedModels;
  if (p.budget !== undefined) out.budget = p.budget === null ? null : { amount: formatNanos(p.budget.amountNanos), reset: p.budget.reset };
  return out;
}
