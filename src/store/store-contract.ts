import type { BudgetAlertRepository } from './budget-alert-store.ts';
import type {
  AccountPatch,
  AccountRecord,
  AccountType,
  KeyBySecret,
  KeyCursor,
  KeyDisabler,
  KeyPageFilter,
  KeyPatch,
  KeyRecord,
  KeyRotation,
  NewKey,
} from './account-records.ts';
import type { ActivityCursor, ActivityFilter, ActivityRow } from './activity-records.ts';
import type { GovernancePruneRepository } from './governance-prune-store.ts';
import type { SsoRepository } from './sso-store.ts';
import type { ChainBreak } from './audit-chain.ts';
import type { AuditActor, AuditEntry } from './audit-records.ts';
import type { WebhookRepository } from './webhook-store.ts';
import type { McpCallRepository, McpServerRepository } from './mcp-store.ts';
import type { MemberRepository } from './member-store.ts';
import type { ByokRepository } from './byok-store.ts';
import type { GenerationFilter, GenerationRecord, UsageWindow } from './generation-records.ts';
import type { HoldRecord, LedgerEntry, SettlementRecord } from './ledger-records.ts';
import type { ReloadStatus } from './reload-status-record.ts';
import type { InProcessHoldData, LoadedSpendState, PeriodDays } from './spend-state.ts';
import type { RefusalCount, RefusalCursor, RefusalFilter } from './refusal-records.ts';
import type { UsageFigures, UsageGroup, UsageGroupRow, UsagePage, UsageRange, UsageGrouping, UsageRow } from './usage-records.ts';

// The store contract: what every caller (routes, dashboard, authenticator, account service,
// CLI) may ask of the durable records, whatever the engine. Every method returns a Promise.
// Its types are its own (this folder's *-records.ts and the SqlRunner repositories, which
// both engines run): no engine's file defines them. Two implementations, one folder each:
// SQLite (sqlite/sqlite-stores.ts: the synchronous classes of sqlite/, resolving at once)
// and Postgres (postgres/postgres-stores.ts). The conformance suite
// (test/store-contract/) runs the same cases over both and expects the same answers.

/** Accounts and API keys. */
export interface AccountRepository {
  createAccount(input: {
    id: string;
    name: string;
    accountType: AccountType;
    tier: string;
    defaultModel: string | null;
    now: string;
  }): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Every account, in creation order (created_at, id). */
  listAccounts(): Promise<AccountRecord[]>;
  countAccounts(): Promise<number>;
  /** The balance as it stands in the database (the ledger's sum). */
  balance(accountId: string): Promise<bigint | undefined>;
  updateAccount(id: string, patch: AccountPatch): Promise<AccountRecord | undefined>;
  /** `limitNanos` null removes the key's own limit; `limitReset` null makes it cap the whole usage; undefined leaves either. */
  updateKey(hash: string, patch: KeyPatch, now: string): Promise<KeyRecord | undefined>;
  deleteKey(hash: string): Promise<boolean>;
  createKey(input: NewKey): Promise<KeyRecord>;
  /** Key lookup by hash (the authenticator's, behind its cache). */
  getKey(hash: string): Promise<KeyRecord | undefined>;
  /** The key a presented secret's hash opens (the authenticator's, behind its cache): its secret in force, or the one a rotation replaced, with its end. */
  getKeyBySecret(secretHash: string): Promise<KeyBySecret | undefined>;
  /** Gives the key a new secret, the one it had kept until `previousUntil` (null: not at all); undefined when no key has that hash. */
  rotateKeySecret(hash: string, rotation: KeyRotation): Promise<KeyRecord | undefined>;
  /** Every key, or one account's, in creation order (created_at, hash). */
  listKeys(accountId?: string): Promise<KeyRecord[]>;
  /** How many keys the account holds (any kind, disabled ones included). */
  countKeys(accountId: string): Promise<number>;
  /** One page of keys in creation order (created_at, hash), after `after`, skipping `offset` more. */
  keysPage(filter: KeyPageFilter, after: KeyCursor | null, limit: number, offset?: number): Promise<KeyRecord[]>;
  /** False when no key has that hash. `by` is recorded when disabling. */
  setKeyActive(hash: string, active: boolean, by: KeyDisabler): Promise<boolean>;
  /** Records last use for many keys at once (never moves a last use backwards). */
  touchKeys(lastUsed: ReadonlyMap<string, string>): Promise<void>;
}

/** The ledger: operator entries, totals, pages, and the settlement batches. */
export interface LedgerRepository {
  /** `credit` (positive) or `adjustment` (either way); returns the new balance. */
  addEntry(accountId: string, kind: 'credit' | 'adjustment', amountNanos: bigint, note: string | null, now: string): Promise<bigint>;
  /** Credits granted (credits plus adjustments) and charges made: credits − usage is the balance. */
  totals(accountId: string): Promise<{ creditsNanos: bigint; usageNanos: bigint }>;
  /** One settlement batch in one transaction (hold rows, charges, generation records, rollups, refusal counts). */
  settle(holds: readonly HoldRecord[], batch: readonly SettlementRecord[], refusals?: readonly RefusalCount[]): Promise<void>;
}

/** What a key spent per UTC day, from the usage_daily_keys rollup (moved in the settlement transaction). */
export interface KeyUsageRepository {
  /** The cost (nano-USD) the key's settled requests created on these days (YYYY-MM-DD). */
  costOnDays(accountId: string, keyHash: string, days: readonly string[]): Promise<bigint>;
  /** Cost and requests per day, only the days with usage, in day order. */
  perDay(accountId: string, keyHash: string, days: readonly string[]): Promise<Array<{ day: string; costNanos: bigint; requests: number }>>;
}

/** Generation records: one by id, ids by filter, a key's spend over a window. */
export interface GenerationRepository {
  getRecord(id: string): Promise<GenerationRecord | undefined>;
  /** Ids matching the filter, newest first (created_at, id). */
  ids(filter: GenerationFilter): Promise<string[]>;
  keyUsageSince(keyHash: string, sinceIso: string): Promise<UsageWindow>;
}

/** The generation list: filters and keyset pages, newest first on (created_at, id). */
export interface ActivityRepository {
  get(id: string): Promise<ActivityRow | undefined>;
  /** `whole`: every column of the record (toGenerationRecord reads the rows), for exports. */
  list(filter: ActivityFilter, limit: number, after: ActivityCursor | null, whole?: boolean): Promise<ActivityRow[]>;
}

/** Usage aggregates: from the daily rollups (aggregate, totals) or one account's records (byAccount). */
export interface UsageRepository {
  /** Groups ordered by day, or by cost (highest first) then group; `page`: a keyset page of them (usage-store.ts). */
  /** `memberId` (with an account): only the keys that member holds. */
  aggregate(
    accountId: string | null,
    group: UsageGroup,
    fromDay: string,
    toDay: string,
    page?: UsagePage,
    memberId?: string,
  ): Promise<UsageGroupRow[]>;
  totals(accountId: string | null, fromDay: string, toDay: string, memberId?: string): Promise<UsageFigures>;
  byAccount(accountId: string, by: UsageGrouping, range?: UsageRange): Promise<UsageRow[]>;
}

/** The admin API's account search (keyset pages), renaming, and an account's ledger pages. */
export interface AdminRepository {
  accountIds(
    search: string | null,
    after: { createdAt: string; id: string } | null,
    limit: number,
  ): Promise<Array<{ id: string; createdAt: string }>>;
  rename(accountId: string, name: string): Promise<boolean>;
  /** Newest first, entries before `beforeId`. */
  ledger(accountId: string, beforeId: number | null, limit: number): Promise<LedgerEntry[]>;
}

/** Counts of requests refused at admission, per key × minute × reason (refusal-counts.ts); written by `LedgerRepository.settle`. */
export interface RefusalRepository {
  /** Newest first on (minute, key hash, reason), rows after `after`. */
  list(filter: RefusalFilter, after: RefusalCursor | null, limit: number): Promise<RefusalCount[]>;
}

/** The admin audit log. */
export interface AuditRepository {
  record(actor: AuditActor, action: string, target: string | null, details: Record<string, unknown> | null, at: string): Promise<void>;
  list(filter: { action?: string; target?: string }, beforeId: number | null, limit: number): Promise<AuditEntry[]>;
  /** Walks the hash chain (audit-chain.ts): how many entries were checked before the first broken one, if any. */
  verify(): Promise<{ checked: number; broken: ChainBreak | null }>;
}

/** A dashboard session's row (only the SHA-256 of its id is stored). */
export interface SessionRow {
  /** The key it was made from; a member's sign-in: `member:<id>`. */
  keyHash: string;
  /** The member of a member's sign-in (emailed link, SSO); null for a key's session. */
  memberId: string | null;
  expiresAt: string;
  revokedAt: string | null;
}

/** Expired sessions removed at most per sign-in (SessionRepository.insert). */
export const SESSION_PURGE_BATCH = 100;

/** Dashboard sessions, by the hash of their id (the logic is server/dashboard/session-store.ts). */
export interface SessionRepository {
  /**
   * Inserts a session in one transaction with its bookkeeping: removes up to
   * SESSION_PURGE_BATCH sessions expired before `purgeBefore` (any key's: through the expiry
   * index, so a sign-in never walks the table), and keeps only the key's `keepPerKey` newest
   * sessions (created_at, then id hash), the new one included: older ones end.
   */
  insert(
    idHash: string,
    keyHash: string,
    createdAt: string,
    expiresAt: string,
    purgeBefore: string,
    keepPerKey: number,
    memberId?: string | null,
  ): Promise<void>;
  find(idHash: string): Promise<SessionRow | undefined>;
  revoke(idHash: string, at: string): Promise<void>;
  revokeKey(keyHash: string, at: string): Promise<void>;
  /** Ends every session of every key of the account (it was deactivated: reactivating it revives none). */
  revokeAccount(accountId: string, at: string): Promise<void>;
}

/** The outcome of the last configuration reload (best effort: a refused write loses only this report). */
export interface ReloadStatusRepository {
  write(status: ReloadStatus): Promise<boolean>;
  read(): Promise<ReloadStatus | null>;
}

/**
 * The data behind credit holds, on either engine: what the shared (Redis) holds load, and the
 * hold rows a dead process left (written and removed by the settlement batches).
 */
export interface HoldRepository {
  /**
   * The spend state of a key and its account, the usage its limit and the account's budget
   * cap over the periods `periodDays` gives, and which of `settlingIds` the ledger already
   * charged: one snapshot (billing/redis-credit-holds.ts's loader).
   */
  loadSpendState(keyHash: string, settlingIds: readonly string[], periodDays: PeriodDays): Promise<LoadedSpendState | undefined>;
  /**
   * Removes the hold rows that expired before `beforeIso` (their request can no longer
   * settle), each recorded as an `interrupted` generation at `nowIso`, nothing charged.
   * Returns how many were removed.
   */
  releaseStale(beforeIso: string, nowIso: string): Promise<number>;
}

/** Every repository over one database. */
export interface Stores {
  readonly engine: 'sqlite' | 'postgres';
  readonly accounts: AccountRepository;
  readonly ledger: LedgerRepository;
  readonly generations: GenerationRepository;
  readonly activity: ActivityRepository;
  readonly usage: UsageRepository;
  readonly keyUsage: KeyUsageRepository;
  readonly admin: AdminRepository;
  readonly audit: AuditRepository;
  readonly refusals: RefusalRepository;
  readonly sessions: SessionRepository;
  readonly reloadStatus: ReloadStatusRepository;
  readonly webhooks: WebhookRepository;
  /** Accounts' own MCP servers (mcp-store.ts). */
  readonly mcpServers: McpServerRepository;
  /** The record of MCP tool calls (mcp-store.ts). */
  readonly mcpCalls: McpCallRepository;
  /** Accounts' members, their keys' owner, their sessions and sign-in links (member-store.ts). */
  readonly members: MemberRepository;
  /** Accounts' own provider keys, sealed (docs/byok.md). */
  readonly byok: ByokRepository;
  /** Fired budget and limit alerts, one row per subject, window and threshold (budget-alert-store.ts). */
  readonly budgetAlerts: BudgetAlertRepository;
  /** The data behind credit holds (spend states, stale hold rows). */
  readonly holds: HoldRepository;
  /**
   * The same, synchronously, for the holds of one process (billing/credit-reservations.ts):
   * SQLite's; null on Postgres, where a fleet keeps its holds in Redis.
   */
  readonly inProcessHolds: InProcessHoldData | null;
  /** Pruning webhook deliveries, MCP tool calls and budget alerts by age (governance-prune-store.ts). */
  readonly governancePruner: GovernancePruneRepository;
  /** Single sign-on: sign-ins in progress, members removed (sso-store.ts). */
  readonly sso: SsoRepository;
  /**
   * Runs fn in one transaction: `tx` is these stores bound to it, all committed together
   * or not at all. Inside a transaction, `tx.transaction` joins it.
   */
  transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T>;
  /**
   * A transaction that no other `exclusive` call with the same `lock` runs beside, in any
   * process on this database (a check-then-create, such as the operator account created on
   * the first start, which several instances of a fleet may attempt at once).
   */
  exclusive<T>(lock: string, fn: (tx: Stores) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
