import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ByokKeys } from '../../auth/byok-keys.ts';
import { rotateMasterKey, RotationRefused } from '../../auth/byok-rotation.ts';
import { ConfigError } from '../../config/config-error.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { masterKeyFromRef } from '../../server/build-byok.ts';
import { localKeyPath, readLocalKey } from '../../server/webhooks/webhook-secret-key.ts';
import { rotateWebhookSecrets, WebhookSecrets } from '../../server/webhooks/webhook-secrets.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { gatewayCatalog } from '../gateway-catalog.ts';
import { withStores, type CliStores } from '../open-cli-stores.ts';
import { emit, renderTable, UsageError } from '../output.ts';
import { requireAccount } from './accounts.ts';

// `switchyard byok`: an account's own provider keys (docs/byok.md), as the admin API manages
// them, and the master key's rotation. A key is read from a file or the standard input,
// never from the command line (shell history, process lists).

interface AccountOptions extends CommonOptions {
  account: string;
}
interface SetOptions extends AccountOptions {
  provider: string;
  mode: string;
  label?: string;
  keyFile: string;
}
interface RemoveOptions extends AccountOptions {
  provider: string;
}
interface RotateOptions extends CommonOptions {
  old?: string;
  new: string;
}

export function byokCommand(program: Command): void {
  const byok = examples(
    program.command('byok').description("accounts' own provider keys (bring your own key), and the master key that seals them"),
    [
      'switchyard byok set --account acct_123 --provider openai --mode only --key-file ./key.txt',
      'switchyard byok list --account acct_123',
      'switchyard byok rotate-master-key --old env:OLD_BYOK_KEY --new file:/run/secrets/byok-master',
    ],
  );

  examples(
    withCommonOptions(
      byok
        .command('set')
        .description("store an account's own key for a provider, checked at the provider first")
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .requiredOption('--provider <id>', 'a provider id of the gateway')
        .requiredOption('--mode <mode>', '"prefer" (its key first, the operator\'s as fallback) or "only" (never the operator\'s)')
        .option('--label <text>', 'a name for the key')
        .option('--key-file <path>', 'where the key is ("-": the standard input)', '-'),
    ),
    [
      'switchyard byok set --account acct_123 --provider anthropic --mode prefer --key-file ./anthropic.key',
      'printf %s "$KEY" | switchyard byok set --account acct_123 --provider openai --mode only',
    ],
  ).action((o: SetOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      if (o.mode !== 'prefer' && o.mode !== 'only') throw new UsageError('--mode: "prefer" or "only"');
      const provider = gatewayCatalog(s.config).catalog.providers.get(o.provider);
      if (provider === undefined || provider.kind === 'sim')
        throw new UsageError(`--provider: no provider "${o.provider}" with this config`);
      const key = readFileSync(o.keyFile === '-' ? 0 : o.keyFile, 'utf8').trim();
      if (key === '') throw new UsageError('the key is empty');
      const view = await asUsage(() =>
        keysOf(s).set(o.account, provider, { key, mode: o.mode as 'prefer' | 'only', label: o.label ?? null }),
      );
      emit(
        o.json,
        { data: view },
        () => `stored: account ${o.account}, provider ${view.provider}, mode ${view.mode}, key …${view.last_four}`,
      );
    }),
  );

  examples(
    withCommonOptions(
      byok
        .command('list')
        .description("an account's own keys: provider, label, last four characters, mode, last failure (never the key)")
        .requiredOption('--account <id>', 'the account id (acct_...)'),
    ),
    ['switchyard byok list --account acct_123 --json'],
  ).action((o: AccountOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      const list = await asUsage(() => keysOf(s).list(o.account));
      emit(o.json, { data: list }, () =>
        list.length === 0
          ? 'no keys of its own'
          : renderTable(
              ['provider', 'label', 'key', 'mode', 'created', 'last failure'],
              list.map((k) => [
                k.provider,
                k.label ?? '',
                `…${k.last_four}`,
                k.mode,
                k.created_at,
                k.last_failure_at === null ? '' : `${k.last_failure_at} ${k.last_failure}`,
              ]),
            ),
      );
    }),
  );

  examples(
    withCommonOptions(
      byok
        .command('remove')
        .description("remove an account's own key for a provider")
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .requiredOption('--provider <id>', 'the provider id'),
    ),
    ['switchyard byok remove --account acct_123 --provider openai'],
  ).action((o: RemoveOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      if (!(await asUsage(() => keysOf(s).remove(o.account, o.provider))))
        throw new UsageError(`account ${o.account} has no key of its own for provider "${o.provider}"`);
      emit(o.json, { deleted: true, provider: o.provider }, () => `removed: account ${o.account}, provider ${o.provider}`);
    }),
  );

  examples(
    withCommonOptions(
      byok
        .command('rotate-master-key')
        .description(
          're-seal every stored key under a new master key, in one transaction (all or none); then set byok.master_key to the new reference and restart',
        )
        .option('--old <ref>', 'the master key now in use, "env:NAME" or "file:/path" (default: byok.master_key of the config)')
        .requiredOption('--new <ref>', 'the new master key, "env:NAME" or "file:/path" (32 random bytes, base64 or hex)'),
    ),
    ['switchyard byok rotate-master-key --old env:BYOK_MASTER_OLD --new env:BYOK_MASTER'],
  ).action((o: RotateOptions) =>
    withStores(o, async (s) => {
      const oldRef = o.old ?? s.config.byok.masterKey;
      if (oldRef === null || oldRef === undefined)
        throw new UsageError('--old: the config has no byok.master_key; name the master key in use');
      const previous = asUsageSync(() => masterKeyFromRef(oldRef, process.env, '--old'));
      const next = asUsageSync(() => masterKeyFromRef(o.new, process.env, '--new'));
      // Webhook secrets too, in the same transaction: sealed by the old key or (SQLite) the local key file.
      const localPath = s.stores.engine === 'sqlite' ? localKeyPath(s.config.database.path) : null;
      const local = localPath === null ? null : asUsageSync(() => readLocalKey(localPath, false));
      const from = new WebhookSecrets(previous, local === null ? [] : [local]);
      const r = await asUsage(() => rotateMasterKey(s.stores, previous!, next!, (tx) => rotateWebhookSecrets(tx, from, next!)));
      emit(
        o.json,
        { resealed: r.resealed, already_new: r.alreadyNew, webhook_secrets: r.also },
        () =>
          `re-sealed ${r.resealed} key(s) and ${r.also} webhook signing secret(s) under the new master key${r.alreadyNew > 0 ? ` (${r.alreadyNew} key(s) already were)` : ''}; now set byok.master_key to ${o.new} and restart the gateway`,
      );
    }),
  );
}

function keysOf(s: CliStores): ByokKeys {
  const master = asUsageSync(() => masterKeyFromRef(s.config.byok.masterKey, process.env));
  return new ByokKeys(s.stores, master, () => s.config.byok.feeBasisPoints);
}

function asUsageSync<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof GatewayError || err instanceof RotationRefused) throw new UsageError(err.message);
    throw err;
  }
}

async function asUsage<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof GatewayError || err instanceof RotationRefused) throw new UsageError(err.message);
    throw err;
  }
}
