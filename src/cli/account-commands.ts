import { formatNanos } from '../billing/money.ts';
import { openStores } from '../server/services.ts';
import type { AccountRecord, KeyRecord } from '../store/account-store.ts';
import { loadCliConfig } from './load-cli-config.ts';
import type { CliValues } from './main.ts';
import { emit, UsageError } from './output.ts';

/** accounts / keys / credits: operator commands that work on the configured database directly. */
export function runAccountCommand(command: string, rest: string[], v: CliValues): number {
  const stores = openStores(loadCliConfig(v));
  try {
    const [sub, arg] = rest;
    const svc = stores.accountService;
    const json = v.json;
    switch (`${command} ${sub ?? ''}`.trim()) {
      case 'accounts create': {
        const input: Parameters<typeof svc.createAccount>[0] = { name: required(v.name, '--name'), type: v.org ? 'organization' : 'user' };
        if (v.tier !== undefined) input.tier = v.tier;
        if (v.credits !== undefined) input.creditsUsd = v.credits;
        if (v['default-model'] !== undefined) input.defaultModel = v['default-model'];
        const a = svc.createAccount(input);
        emit(json, accountJson(a), () => `created account ${a.id} (${a.name}, ${a.accountType}, tier ${a.tier}, balance $${formatNanos(a.balanceNanos)})`);
        return 0;
      }
      case 'accounts update': {
        const patch: Parameters<typeof svc.updateAccount>[1] = {};
        if (v.tier !== undefined) patch.tier = v.tier;
        if (v['default-model'] !== undefined) patch.defaultModel = v['default-model'];
        if (v.active !== undefined) patch.isActive = parseBool(v.active, '--active');
        if (v['clear-limits']) patch.limitsOverride = null;
        else if (v.rpm !== undefined || v.rpd !== undefined) {
          const current = stores.accounts.getAccount(required(v.account, '--account'))?.limitsOverride ?? {};
          const next = { ...current };
          if (v.rpm !== undefined) next.requests_per_minute = positiveInt(v.rpm, '--rpm');
          if (v.rpd !== undefined) next.requests_per_day = v.rpd === 'none' ? null : positiveInt(v.rpd, '--rpd');
          patch.limitsOverride = next;
        }
        const a = svc.updateAccount(required(v.account, '--account'), patch);
        emit(json, accountJson(a), () => `updated account ${a.id} (tier ${a.tier}, default model ${a.defaultModel ?? 'none'}, ${a.isActive ? 'active' : 'inactive'})`);
        return 0;
      }
      case 'accounts list': {
        const all = stores.accounts.listAccounts();
        emit(json, all.map(accountJson), () => all.map((a) => `${a.id}\t${a.name}\t${a.accountType}\t${a.tier}\t$${formatNanos(a.balanceNanos)}`).join('\n') || 'no accounts');
        return 0;
      }
      case 'keys create': {
        const { key, record } = svc.createKey({
          accountId: required(v.account, '--account'),
          name: v.name ?? 'default',
          limitUsd: v.limit ?? null,
          expiresAt: v.expires ?? null,
          management: v.management,
          admin: v.admin,
        });
        emit(json, { key, ...keyJson(record) }, () => `created key ${record.label} (hash ${record.hash})\n\n    ${key}\n\nThe key is shown this once; keep it.`);
        return 0;
      }
      case 'keys list': {
        const keys = stores.accounts.listKeys(v.account);
        emit(json, keys.map(keyJson), () => keys.map((k) => `${k.hash}\t${k.label}\t${k.name}\t${k.accountId}\t${k.isActive ? 'active' : 'revoked'}\tused $${formatNanos(k.usageNanos)}`).join('\n') || 'no keys');
        return 0;
      }
      case 'keys revoke': {
        const key = svc.revokeKey(required(arg, 'the key hash or label'));
        if (key === undefined) throw new Error(`no key matches "${arg}" (give its hash, or a label that only one key has)`);
        emit(json, keyJson(key), () => `revoked key ${key.label} (hash ${key.hash})`);
        return 0;
      }
      case 'keys enable': {
        const key = svc.enableKey(required(arg, 'the key hash or label'));
        if (key === undefined) throw new Error(`no key matches "${arg}" (give its hash, or a label that only one key has)`);
        emit(json, keyJson(key), () => `enabled key ${key.label} (hash ${key.hash})`);
        return 0;
      }
      case 'credits add': {
        const accountId = required(v.account, '--account');
        const amount = required(v.amount, '--amount');
        if (amount.trim().startsWith('-')) {
          throw new UsageError(`credits add: --amount must be positive (got ${amount}); to take credits away: switchyard credits adjust --account ID --amount=-USD --reason TEXT`);
        }
        const balance = svc.addCredits(accountId, amount, 'added by operator');
        emit(json, { account_id: accountId, balance: formatNanos(balance) }, () => `account ${accountId} balance: $${formatNanos(balance)}`);
        return 0;
      }
      case 'credits adjust': {
        const accountId = required(v.account, '--account');
        const balance = svc.adjustCredits(accountId, required(v.amount, '--amount'), required(v.reason?.trim(), '--reason'));
        emit(json, { account_id: accountId, balance: formatNanos(balance) }, () => `account ${accountId} adjusted; balance: $${formatNanos(balance)}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${[command, ...rest].join(' ')}"; see switchyard --help`);
    }
  } finally {
    stores.db.close();
  }
}

function parseBool(value: string, what: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`${what}: expected true or false`);
}

function positiveInt(value: string, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${what}: expected a positive integer`);
  return n;
}

function required(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

function accountJson(a: AccountRecord): Record<string, unknown> {
  return {
    id: a.id, name: a.name, account_type: a.accountType, tier: a.tier, default_model: a.defaultModel,
    balance: formatNanos(a.balanceNanos), is_active: a.isActive,
    limits_override: a.limitsOverride, created_at: a.createdAt,
  };
}

function keyJson(k: KeyRecord): Record<string, unknown> {
  return {
    hash: k.hash, label: k.label, name: k.name, account_id: k.accountId,
    limit: k.limitNanos === null ? null : formatNanos(k.limitNanos), usage: formatNanos(k.usageNanos),
    is_active: k.isActive, disabled_by: k.disabledBy, is_management: k.isManagement, is_admin: k.isAdmin, expires_at: k.expiresAt, created_at: k.createdAt, last_used: k.lastUsed,
  };
}
