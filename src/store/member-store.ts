import type { SqlRunner } from './webhook-store.ts';

// An account's members (table members, migration 15), the keys they hold (api_keys.member_id),
// the sessions of their sign-ins (dashboard_sessions.member_id) and their one-time sign-in
// links (sign_in_links): one implementation over both engines, its SQL written once with `?`
// parameters (Postgres's runner numbers them), as webhook-store.ts.

export type MemberRole = 'owner' | 'admin' | 'member' | 'viewer';
export const MEMBER_ROLES: readonly MemberRole[] = ['owner', 'admin', 'member', 'viewer'];

/** A member's budget window (enforced by the budgets part; stored here). */
export type BudgetReset = 'daily' | 'weekly' | 'monthly' | 'none';
export const BUDGET_RESETS: readonly BudgetReset[] = ['daily', 'weekly', 'monthly', 'none'];

export interface MemberRecord {
  id: string;
  accountId: string;
  email: string;
  name: string;
  role: MemberRole;
  /** Model ids and globs this member's keys may use (null: the account's); enforced by the allowlist part. */
  allowedModels: string[] | null;
  budget: { amountNanos: bigint; reset: BudgetReset } | null;
  createdAt: string;
  updatedAt: string | null;
}

/** A member's change (undefined: unchanged; null clears). */
export interface MemberPatch {
  name?: string;
  role?: MemberRole;
  allowedModels?: string[] | null;
  budget?: { amountNanos: bigint; reset: BudgetReset } | null;
}

export interface SignInLinkRow {
  tokenHash: string;
  memberId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface MemberRepository {
  create(m: MemberRecord): Promise<void>;
  get(id: string): Promise<MemberRecord | undefined>;
  /** The account's member with this email (case-insensitive). */
  byEmail(accountId: string, email: string): Promise<MemberRecord | undefined>;
  /** Every membership of an email, in any account (the emailed sign-in's lookup). */
  withEmail(email: string): Promise<MemberRecord[]>;
  /** The account's members, oldest first. */
  list(accountId: string): Promise<MemberRecord[]>;
  update(id: string, patch: MemberPatch, now: string): Promise<MemberRecord | undefined>;
  remove(id: string): Promise<boolean>;
  countOwners(accountId: string): Promise<number>;
  /** The hashes of the keys the member holds. */
  keyHashes(memberId: string): Promise<string[]>;
  setKeyMember(keyHash: string, memberId: string | null): Promise<void>;
  /** Moves every key of `from` to `to`; returns their hashes. */
  reassignKeys(from: string, to: string): Promise<string[]>;
  /** Ends every dashboard session of the member (their sign-ins'). */
  revokeSessions(memberId: string, at: string): Promise<void>;
  insertLink(link: SignInLinkRow, purgeBefore: string): Promise<void>;
  /**
   * Uses a link once: marks it used if it is unused and unexpired at `now`, and returns its
   * member id; undefined otherwise (unknown, used, expired). One statement: two redemptions
   * racing cannot both win.
   */
  redeemLink(tokenHash: string, now: string): Promise<string | undefined>;
}

/** A text column's cell (node:sqlite and pg both return text as a string), or null. */
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function toMember(r: Record<string, unknown>): MemberRecord {
  const budget =
    r.budget_nanos === null || r.budget_nanos === undefined
      ? null
      : { amountNanos: BigInt(r.budget_nanos as bigint | number | string), reset: (str(r.budget_reset) ?? 'none') as BudgetReset };
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    email: r.email as string,
    name: r.name as string,
    role: r.role as MemberRole,
    allowedModels:
      r.allowed_models === null || r.allowed_models === undefined ? null : (JSON.parse(r.allowed_models as string) as string[]),
    budget,
    createdAt: r.created_at as string,
    updatedAt: str(r.updated_at),
  };
}

export class SqlMemberRepository implements MemberRepository {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  async create(m: MemberRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO members (id, account_id, email, email_lower, name, role, allowed_models, budget_nanos, budget_reset, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        m.id,
        m.accountId,
        m.email,
        m.email.toLowerCase(),
        m.name,
        m.role,
        m.allowedModels === null ? null : JSON.stringify(m.allowedModels),
        m.budget === null ? null : m.budget.amountNanos.toString(),
        m.budget?.reset ?? null,
        m.createdAt,
        m.updatedAt,
      ],
    );
  }

  async get(id: string): Promise<MemberRecord | undefined> {
    const r = (await this.sql.all('SELECT * FROM members WHERE id = ?', [id]))[0];
    return r === undefined ? undefined : toMember(r);
  }

  async byEmail(accountId: string, email: string): Promise<MemberRecord | undefined> {
    const r = (await this.sql.all('SELECT * FROM members WHERE account_id = ? AND email_lower = ?', [accountId, email.toLowerCase()]))[0];
    return r === undefined ? undefined : toMember(r);
  }

  async withEmail(email: string): Promise<MemberRecord[]> {
    return (await this.sql.all('SELECT * FROM members WHERE email_lower = ? ORDER BY created_at, id', [email.toLowerCase()])).map(toMember);
  }

  async list(accountId: string): Promise<MemberRecord[]> {
    return (await this.sql.all('SELECT * FROM members WHERE account_id = ? ORDER BY created_at, id', [accountId])).map(toMember);
  }

  async update(id: string, patch: MemberPatch, now: string): Promise<MemberRecord | undefined> {
    const sets: string[] = [];
    const params: Array<string | null> = [];
    if (patch.name !== undefined) {
      sets.push('name = ?');
      params.push(patch.name);
    }
    if (patch.role !== undefined) {
      sets.push('role = ?');
      params.push(patch.role);
    }
    if (patch.allowedModels !== undefined) {
      sets.push('allowed_models = ?');
      params.push(patch.allowedModels === null ? null : JSON.stringify(patch.allowedModels));
    }
    if (patch.budget !== undefined) {
      sets.push('budget_nanos = ?', 'budget_reset = ?');
      params.push(patch.budget === null ? null : patch.budget.amountNanos.toString(), patch.budget?.reset ?? null);
    }
    sets.push('updated_at = ?');
    params.push(now, id);
    await this.sql.run(`UPDATE members SET ${sets.join(', ')} WHERE id = ?`, params);
    return this.get(id);
  }

  async remove(id: string): Promise<boolean> {
    await this.sql.run('DELETE FROM sign_in_links WHERE member_id = ?', [id]);
    return (await this.sql.run('DELETE FROM members WHERE id = ?', [id])) > 0;
  }

  async countOwners(accountId: string): Promise<number> {
    const r = (await this.sql.all(`SELECT count(*) AS n FROM members WHERE account_id = ? AND role = 'owner'`, [accountId]))[0];
    return Number(r?.n ?? 0);
  }

  async keyHashes(memberId: string): Promise<string[]> {
    return (await this.sql.all('SELECT hash FROM api_keys WHERE member_id = ? ORDER BY created_at, hash', [memberId])).map(
      (r) => r.hash as string,
    );
  }

  async setKeyMember(keyHash: string, memberId: string | null): Promise<void> {
    await this.sql.run('UPDATE api_keys SET member_id = ? WHERE hash = ?', [memberId, keyHash]);
  }

  async reassignKeys(from: string, to: string): Promise<string[]> {
    const hashes = await this.keyHashes(from);
    await this.sql.run('UPDATE api_keys SET member_id = ? WHERE member_id = ?', [to, from]);
    return hashes;
  }

  async revokeSessions(memberId: string, at: string): Promise<void> {
    await this.sql.run('UPDATE dashboard_sessions SET revoked_at = ? WHERE member_id = ? AND revoked_at IS NULL', [at, memberId]);
  }

  async insertLink(link: SignInLinkRow, purgeBefore: string): Promise<void> {
    await this.sql.run('DELETE FROM sign_in_links WHERE expires_at < ?', [purgeBefore]);
    await this.sql.run('INSERT INTO sign_in_links (token_hash, member_id, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?)', [
      link.tokenHash,
      link.memberId,
      link.createdAt,
      link.expiresAt,
      link.usedAt,
    ]);
  }

  async redeemLink(tokenHash: string, now: string): Promise<string | undefined> {
    const changed = await this.sql.run('UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?', [
      now,
      tokenHash,
      now,
    ]);
    if (changed !== 1) return undefined;
    const r = (await this.sql.all('SELECT member_id FROM sign_in_links WHERE token_hash = ?', [tokenHash]))[0];
    return r === undefined ? undefined : (r.member_id as string);
  }
}
