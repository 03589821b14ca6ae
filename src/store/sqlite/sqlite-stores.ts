import type { DatabaseSync } from 'node:sqlite';
import { AccountStore } from './account-store.ts';
import { ActivityStore } from './activity-store.ts';
import { AdminStore } from './admin-store.ts';
import { AuditStore, verifySqliteAuditChain } from './audit-store.ts';
import { GenerationQuery } from './generation-query.ts';
import { GenerationStore } from './generation-store.ts';
import { KeyPeriodUsage } from './key-period-usage.ts';
import { LedgerStore } from './ledger-store.ts';
import { openDatabase } from './open-database.ts';
import { RefusalCountQuery } from './refusal-counts.ts';
import { readReloadStatus, writeReloadStatus } from './reload-status.ts';
import { SqliteSessionRepository } from './sqlite-session-repository.ts';
import type { AccountRepository, Stores } from '../store-contract.ts';
import { UsageQuery } from './usage-query.ts';
import { UsageStore } from './usage-store.ts';
import { SqlWebhookRepository, type SqlRunner } from '../webhook-store.ts';
import { SqlMcpCallRepository, SqlMcpServerRepository } from '../mcp-store.ts';
import { SqlMemberRepository } from '../member-store.ts';
import { SqlByokRepository } from '../byok-store.ts';
import { SqlBudgetAlertRepository } from '../budget-alert-store.ts';
import { ReservationStore } from './reservation-store.ts';
import { SqlGovernancePruner } from '../governance-prune-store.ts';
import { SqlSsoRepository } from '../sso-store.ts';

/** The SQLite stores, plus the synchronous classes under them (the settlement queue and credit holds use those). */
export interface SqliteStores extends Stores {
  readonly engine: 'sqlite';
  readonly db: DatabaseSync;
  readonly sync: { accounts: AccountStore; ledger: LedgerStore };
}

/**
 * The store contract over SQLite: this folder's synchronous classes, their SQL unchanged,
 * each call resolving at once. Opens (and migrates) the database at `path`, or wraps `db`.
 */
export function openSqliteStores(config: { database: { path: string } } | { db: DatabaseSync }): SqliteStores {
  const db = 'db' in config ? config.db : openDatabase(config.database.path);
  const accounts = new AccountStore(db);
  const ledger = new LedgerStore(db);
  const generations = new GenerationStore(db);
  const query = new GenerationQuery(db);
  const usage = new UsageStore(db);
  const usageQuery = new UsageQuery(db);
  const activity = new ActivityStore(db);
  const admin = new AdminStore(db);
  const audit = new AuditStore(db);
  const keyUsage = new KeyPeriodUsage(db);
  const refusals = new RefusalCountQuery(db);
  const reservations = new ReservationStore(db);
  // webhook-store.ts's, mcp-store.ts's, byok-store.ts's and budget-alert-store.ts's SQL, run on this connection.
  const runner: SqlRunner = {
    all: async (sql, params) => db.prepare(sql).all(...params),
    run: async (sql, params) => Number(db.prepare(sql).run(...params).changes),
  };
  // Transactions one at a time: each runs BEGIN IMMEDIATE … COMMIT on the one connection.
  let queue: Promise<unknown> = Promise.resolve();
  const stores: SqliteStores = {
    engine: 'sqlite',
    db,
    sync: { accounts, ledger },
    accounts: accountRepository(accounts),
    ledger: {
      addEntry: async (...a) => ledger.addEntry(...a),
      totals: async (id) => ledger.totals(id),
      settle: async (holds, batch, refusals) => ledger.settle(holds, batch, refusals),
    },
    generations: {
      getRecord: async (id) => generations.getRecord(id),
      ids: async (f) => query.ids(f),
      keyUsageSince: async (hash, since) => generations.keyUsageSince(hash, since),
    },
    activity: { get: async (id) => activity.get(id), list: async (...a) => activity.list(...a) },
    usage: {
      aggregate: async (...a) => usage.aggregate(...a),
      totals: async (...a) => usage.totals(...a),
      byAccount: async (...a) => usageQuery.byAccount(...a),
    },
    keyUsage: { costOnDays: async (...a) => keyUsage.costOnDays(...a), perDay: async (...a) => keyUsage.perDay(...a) },
    admin: {
      accountIds: async (...a) => admin.accountIds(...a),
      rename: async (...a) => admin.rename(...a),
      ledger: async (...a) => admin.ledger(...a),
    },
    audit: {
      record: async (...a) => audit.record(...a),
      list: async (...a) => audit.list(...a),
      verify: async () => verifySqliteAuditChain(db),
    },
    refusals: { list: async (...a) => refusals.list(...a) },
    sessions: new SqliteSessionRepository(db),
    reloadStatus: { write: async (s) => writeReloadStatus(db, s), read: async () => readReloadStatus(db) },
    webhooks: new SqlWebhookRepository(runner),
    mcpServers: new SqlMcpServerRepository(runner),
    mcpCalls: new SqlMcpCallRepository(runner),
    // Read as bigints: a member's budget is money (nano-USD).
    members: new SqlMemberRepository({
      all: async (sql, params) => {
        const stmt = db.prepare(sql);
        stmt.setReadBigInts(true);
        return stmt.all(...params);
      },
      run: async (sql, params) => Number(db.prepare(sql).run(...params).changes),
    }),
    byok: new SqlByokRepository(runner),
    budgetAlerts: new SqlBudgetAlertRepository(runner),
    holds: {
      loadSpendState: async (...a) => reservations.loadSpendState(...a),
      releaseStale: async (before, now) => reservations.releaseStale(before, now).length,
    },
    inProcessHolds: reservations,
    governancePruner: new SqlGovernancePruner(runner),
    sso: new SqlSsoRepository(runner),
    transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T> {
      const run = queue.then(() => inTransaction(db, () => fn(joined)));
      queue = run.catch(() => {});
      return run;
    },
    // BEGIN IMMEDIATE takes the database's write lock: other processes' wait (busy_timeout).
    exclusive: (_lock, fn) => stores.transaction(fn),
    async close() {
      db.close();
    },
  };
  // Inside a transaction, the same repositories; a nested transaction joins the open one.
  const joined: SqliteStores = { ...stores, transaction: (fn) => fn(joined), exclusive: (_lock, fn) => fn(joined) };
  return stores;
}

function accountRepository(a: AccountStore): AccountRepository {
  return {
    createAccount: async (i) => a.createAccount(i),
    getAccount: async (id) => a.getAccount(id),
    listAccounts: async () => a.listAccounts(),
    countAccounts: async () => a.countAccounts(),
    balance: async (id) => a.balance(id),
    updateAccount: async (id, patch) => a.updateAccount(id, patch),
    updateKey: async (hash, patch, now) => a.updateKey(hash, patch, now),
    deleteKey: async (hash) => a.deleteKey(hash),
    createKey: async (i) => a.createKey(i),
    getKey: async (hash) => a.getKey(hash),
    getKeyBySecret: async (secretHash) => a.getKeyBySecret(secretHash),
    rotateKeySecret: async (hash, rotation) => a.rotateKeySecret(hash, rotation),
    listKeys: async (id) => a.listKeys(id),
    countKeys: async (id) => a.countKeys(id),
    keysPage: async (...args) => a.keysPage(...args),
    setKeyActive: async (hash, active, by) => a.setKeyActive(hash, active, by),
    touchKeys: async (m) => a.touchKeys(m),
  };
}

/**
 * BEGIN IMMEDIATE, fn, COMMIT (ROLLBACK on error). The repositories resolve at once, so fn's
 * awaits do not let timers or I/O run inside the transaction; a write another request makes
 * meanwhile through the synchronous classes joins it (as a savepoint), as before.
 */
async function inTransaction<T>(db: DatabaseSync, fn: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = await fn();
    db.exec('COMMIT');
    return out;
  } catch (err) {
    if (db.isTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // The original error is what the caller needs.
      }
    }
    throw err;
  }
}
