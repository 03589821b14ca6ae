import type { Command } from 'commander';
import { MAX_ROTATION_OVERLAP_SECONDS } from '../../billing/account-service.ts';
import { formatNanos } from '../../money/money.ts';
import type { KeyRecord } from '../../store/account-records.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores, type CliStores } from '../open-cli-stores.ts';
import { emit, renderTable, UsageError } from '../output.ts';
import { futureDate, limitReset, nonNegativeUsd, usdOrNone } from '../parse-values.ts';
import { requireAccount } from './accounts.ts';
import { allowlistChangeOf, describeAllowlist, maxInFlightOf, withAllowlistOptions, type AllowlistOptions } from '../allowlist-options.ts';
import { applyAllowlist } from '../../billing/allowlist-input.ts';
import { adminKeyView, keyKind, keyStatus } from '../../server/routes/admin/admin-views.ts';

interface CreateOptions extends CommonOptions, AllowlistOptions {
  account: string;
  name?: string;
  limit?: string;
  limitReset?: 'daily' | 'weekly' | 'monthly' | 'none';
  expires?: string;
  management?: boolean;
  admin?: boolean;
  maxInFlight?: string;
}
interface UpdateOptions extends CommonOptions, AllowlistOptions {
  limit?: string;
  limitReset?: 'daily' | 'weekly' | 'monthly' | 'none';
  maxInFlight?: string;
}
interface ListOptions extends CommonOptions {
  account?: string;
}
interface RotateOptions extends CommonOptions {
  overlap?: number;
}

/** `--overlap`: whole seconds, 0 to 7 days. */
function overlapSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > MAX_ROTATION_OVERLAP_SECONDS)
    throw new UsageError(`--overlap: "${value}" is not a number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)`);
  return n;
}

export function keysCommand(program: Command): void {
  const keys = examples(program.command('keys').description('create, list, revoke, enable and rotate API keys'), [
    'switchyard keys create --account acct_123 --name ci --limit 5',
    'switchyard keys list --account acct_123',
    'switchyard keys revoke sk-sy-v1-3f9...c1a',
  ]);

  examples(
    withCommonOptions(
      withAllowlistOptions(
        keys
          .command('create')
          .description('create a key for an account (the key is shown this once)')
          .requiredOption('--account <id>', 'the account id (acct_...)')
          .option('--name <name>', 'a name to recognise it by', 'default')
          .option('--limit <usd>', 'a spending limit of its own, in USD', nonNegativeUsd)
          .option(
            '--limit-reset <period>',
            'the limit starts again each UTC day, week (Monday) or month: daily, weekly, monthly or none',
            limitReset,
          )
          .option('--expires <date>', 'expiry, a future ISO 8601 date (2026-12-31 or 2026-12-31T18:00:00Z)', futureDate)
          .option('--management', "a management key: manages the account's keys over HTTP, cannot call models")
          .option('--admin', "an admin key: the operator's key for the admin API (/api/v1/admin), global, cannot call models"),
      ).option('--max-in-flight <n>', 'requests of the key in flight at once (the next is refused 429)'),
    ),
    [
      'switchyard keys create --account acct_123 --name ci --limit 5',
      'switchyard keys create --account acct_123 --name claude --allowed-models "anthropic/*" --max-in-flight 4',
      'switchyard keys create --account acct_123 --name daily --limit 2 --limit-reset daily',
      'switchyard keys create --account acct_123 --name admin --management',
      'switchyard keys create --account acct_123 --name ops --admin',
      'switchyard keys create --account acct_123 --name trial --expires 2026-12-31 --json',
    ],
  ).action((o: CreateOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      const reset = o.limitReset === undefined || o.limitReset === 'none' ? null : o.limitReset;
      if (reset !== null && o.limit === undefined)
        throw new UsageError('--limit-reset needs --limit (the limit that starts again each period)');
      const allowlist = applyAllowlist(null, allowlistChangeOf(o));
      const maxInFlight = maxInFlightOf(o.maxInFlight) ?? null;
      const { key, record } = await s.accountService.createKey({
        accountId: o.account,
        name: o.name ?? 'default',
        limitUsd: o.limit ?? null,
        limitReset: reset,
        expiresAt: o.expires ?? null,
        management: o.management === true,
        admin: o.admin === true,
        allowlist,
        maxInFlight,
      });
      emit(
        o.json,
        { key, ...adminKeyView(record) },
        () => `created key ${record.label} (hash ${record.hash})\n\n    ${key}\n\nThe key is shown this once; keep it.`,
      );
    }),
  );

  examples(
    withCommonOptions(
      keys
        .command('list')
        .description('list keys (never the keys themselves: their labels and hashes)')
        .option('--account <id>', "only this account's keys"),
    ),
    ['switchyard keys list', 'switchyard keys list --account acct_123 --json'],
  ).action((o: ListOptions) =>
    withStores(o, async (s) => {
      if (o.account !== undefined) await requireAccount(s, o.account);
      const all = await s.stores.accounts.listKeys(o.account);
      const now = Date.now();
      emit(o.json, all.map(adminKeyView), () =>
        all.length === 0
          ? 'no keys'
          : renderTable(
              ['LABEL', 'NAME', 'ACCOUNT', 'STATUS', 'KIND', 'LIMIT', 'USED', 'EXPIRES', 'HASH'],
              all.map((k) => [
                k.label,
                k.name,
                k.accountId,
                keyStatus(k, now),
                keyKind(k),
                k.limitNanos === null ? '-' : `$${formatNanos(k.limitNanos)}${k.limitReset === null ? '' : ` ${k.limitReset}`}`,
                `$${formatNanos(k.usageNanos)}`,
                k.expiresAt ?? '-',
                k.hash,
              ]),
              [5, 6],
            ),
      );
    }),
  );

  examples(
    withCommonOptions(
      withAllowlistOptions(
        keys
          .command('update')
          .description("change a key's credit limit and the limit's reset period, what it may reach and its cap on concurrent requests")
          .argument('<key>', "the key's hash, or its label when only one key has it")
          .option('--limit <usd>', 'a spending limit of its own, in USD, or none', usdOrNone)
          .option(
            '--limit-reset <period>',
            'the limit starts again each UTC day, week (Monday) or month: daily, weekly, monthly or none',
            limitReset,
          ),
      ).option('--max-in-flight <n|none>', 'requests of the key in flight at once (the next is refused 429); none: no cap'),
    ),
    [
      'switchyard keys update sk-sy-v1-3f9...c1a --limit 5 --limit-reset weekly',
      'switchyard keys update sk-sy-v1-3f9...c1a --limit none',
      'switchyard keys update sk-sy-v1-3f9...c1a --allowed-models "openai/*,anthropic/*" --max-price prompt=5,completion=15',
      'switchyard keys update sk-sy-v1-3f9...c1a --allowed-models none --max-in-flight none',
    ],
  ).action((ref: string, o: UpdateOptions) =>
    withStores(o, async (s) => {
      const before = await findKey(s, ref);
      const allowlist = allowlistChangeOf(o);
      const maxInFlight = maxInFlightOf(o.maxInFlight);
      const limits = o.limit !== undefined || o.limitReset !== undefined;
      if (!limits && allowlist === null && maxInFlight === undefined) {
        throw new UsageError(
          'nothing to change: give --limit, --limit-reset, --allowed-models, --allowed-providers, --max-price or --max-in-flight',
        );
      }
      let key: KeyRecord = before;
      try {
        if (limits) {
          key = (await s.accountService.updateKeyLimit(before.hash, {
            ...(o.limit === undefined ? {} : { limitUsd: o.limit === 'none' ? null : o.limit }),
            ...(o.limitReset === undefined ? {} : { limitReset: o.limitReset === 'none' ? null : o.limitReset }),
          }))!;
        }
        if (allowlist !== null || maxInFlight !== undefined) {
          key = (await s.accountService.updateKeyAccess(before.hash, {
            allowlist,
            ...(maxInFlight === undefined ? {} : { maxInFlight }),
          }))!;
        }
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      emit(
        o.json,
        adminKeyView(key),
        () =>
          `key ${key.label} (hash ${key.hash}): limit ${key.limitNanos === null ? 'none' : `$${formatNanos(key.limitNanos)}`}` +
          `${key.limitReset === null ? '' : `, reset ${key.limitReset}`}; allowlist ${describeAllowlist(key.allowlist)}; max in flight ${key.maxInFlight ?? 'none'}`,
      );
    }),
  );

  examples(
    withCommonOptions(
      keys
        .command('revoke')
        .description('revoke a key (final for the account: its management key cannot enable it again)')
        .argument('<key>', "the key's hash, or its label when only one key has it"),
    ),
    ['switchyard keys revoke sk-sy-v1-3f9...c1a'],
  ).action((ref: string, o: CommonOptions) =>
    withStores(o, async (s) => {
      const before = await findKey(s, ref);
      if (!before.isActive && before.disabledBy === 'operator') {
        emit(
          o.json,
          { ...adminKeyView(before), changed: false },
          () => `key ${before.label} (hash ${before.hash}) was already revoked; nothing changed`,
        );
        return;
      }
      const key = (await s.accountService.revokeKey(before.hash))!;
      emit(o.json, { ...adminKeyView(key), changed: true }, () => `revoked key ${key.label} (hash ${key.hash})`);
    }),
  );

  examples(
    withCommonOptions(
      keys
        .command('rotate')
        .description(
          'a new secret for the same key (same hash, label, limits and usage), shown this once; the old one works --overlap seconds more',
        )
        .argument('<key>', "the key's hash, or its label when only one key has it")
        .option(
          '--overlap <seconds>',
          `how long the old secret keeps working, 0 (default: it stops at once) to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)`,
          overlapSeconds,
        ),
    ),
    ['switchyard keys rotate sk-sy-v1-3f9...c1a', 'switchyard keys rotate 9c1e...f0 --overlap 3600 --json'],
  ).action((ref: string, o: RotateOptions) =>
    withStores(o, async (s) => {
      const before = await findKey(s, ref);
      const overlap = o.overlap ?? 0;
      const rotated = await s.stores.transaction(async (tx) => {
        const out = (await s.accountService.within(tx).rotateKey(before.hash, overlap))!;
        // The operator's shell has no key of its own: the audit names the CLI as the actor.
        await tx.audit.record(
          { keyHash: 'cli', label: 'switchyard keys rotate', accountId: before.accountId },
          'key.rotate',
          before.hash,
          {
            account_id: before.accountId,
            label: before.label,
            by: 'operator',
            overlap_seconds: overlap,
            previous_key_expires_at: out.previousUntil,
          },
          new Date().toISOString(),
        );
        return out;
      });
      const until =
        rotated.previousUntil === null ? 'the old secret stopped working now' : `the old secret works until ${rotated.previousUntil}`;
      emit(
        o.json,
        { key: rotated.key, previous_key_expires_at: rotated.previousUntil, ...adminKeyView(rotated.record) },
        () =>
          `rotated key ${rotated.record.label} (hash ${rotated.record.hash}); ${until}\n\n    ${rotated.key}\n\nThe new key is shown this once; keep it.`,
      );
    }),
  );

  examples(
    withCommonOptions(
      keys
        .command('enable')
        .description("lift a revocation (the operator's or the account's)")
        .argument('<key>', "the key's hash, or its label when only one key has it"),
    ),
    ['switchyard keys enable sk-sy-v1-3f9...c1a'],
  ).action((ref: string, o: CommonOptions) =>
    withStores(o, async (s) => {
      const before = await findKey(s, ref);
      if (before.isActive) {
        emit(
          o.json,
          { ...adminKeyView(before), changed: false },
          () => `key ${before.label} (hash ${before.hash}) is already active; nothing changed`,
        );
        return;
      }
      const key = (await s.accountService.enableKey(before.hash))!;
      emit(o.json, { ...adminKeyView(key), changed: true }, () => `enabled key ${key.label} (hash ${key.hash})`);
    }),
  );
}

async function findKey(s: CliStores, ref: string): Promise<KeyRecord> {
  const key = await s.accountService.findKey(ref);
  if (key === undefined)
    throw new UsageError(`no key matches "${ref}" (give its hash, or a label that only one key has; switchyard keys list shows them)`);
  return key;
}
