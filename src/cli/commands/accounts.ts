import { InvalidArgumentError, type Command } from 'commander';
import { MAX_RETENTION_DAYS } from '../../config/parse-records.ts';
import { formatNanos } from '../../money/money.ts';
import type { AccountBudget, AccountRecord } from '../../store/account-records.ts';
import { readBudget } from '../../billing/budgets.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { checkModelName } from '../gateway-catalog.ts';
import { withStores, type CliStores } from '../open-cli-stores.ts';
import { emit, renderTable, UsageError } from '../output.ts';
import { bool, nonNegativeUsd, positiveInt } from '../parse-values.ts';
import { accountView } from '../../server/routes/admin/admin-views.ts';
import { allowlistChangeOf, describeAllowlist, withAllowlistOptions, type AllowlistOptions } from '../allowlist-options.ts';
import { applyAllowlist } from '../../billing/allowlist-input.ts';
import { readGuardrails } from '../../billing/guardrail-input.ts';

interface CreateOptions extends CommonOptions, AllowlistOptions {
  name: string;
  org?: boolean;
  credits?: string;
  tier?: string;
  defaultModel?: string;
}
interface UpdateOptions extends CommonOptions, AllowlistOptions {
  account: string;
  tier?: string;
  defaultModel?: string;
  active?: boolean;
  rpm?: number;
  rpd?: number | 'none';
  clearLimits?: boolean;
  retentionDays?: number | 'none';
  budget?: string;
  budgetReset?: string;
  budgetAlerts?: string;
  guardrails?: string;
}

export function accountsCommand(program: Command): void {
  const accounts = examples(program.command('accounts').description('create, change and list accounts (who holds credits and keys)'), [
    'switchyard accounts create --name "Acme" --org --credits 50',
    'switchyard accounts list',
    'switchyard accounts update --help',
  ]);

  examples(
    withCommonOptions(
      withAllowlistOptions(
        accounts
          .command('create')
          .description('create an account')
          .requiredOption('--name <name>', 'its display name')
          .option('--org', 'an organization rather than a user')
          .option('--credits <usd>', 'initial credits in USD', nonNegativeUsd)
          .option('--tier <tier>', 'rate-limit tier (default: free)')
          .option('--default-model <model>', 'model used when a request names none (checked against the catalog)'),
      ),
    ),
    [
      'switchyard accounts create --name "Acme" --org --credits 50 --tier tier2',
      'switchyard accounts create --name "Acme" --org --allowed-models "anthropic/*,openai/*"',
    ],
  ).action((o: CreateOptions) =>
    withStores(o, async (s) => {
      const input: Parameters<typeof s.accountService.createAccount>[0] = { name: o.name, type: o.org === true ? 'organization' : 'user' };
      if (o.tier !== undefined) input.tier = o.tier;
      if (o.credits !== undefined) input.creditsUsd = o.credits;
      if (o.defaultModel !== undefined) input.defaultModel = checkModelName(s.config, o.defaultModel);
      const allowlist = applyAllowlist(null, allowlistChangeOf(o));
      let a = await s.accountService.createAccount(input);
      if (allowlist !== null) a = await s.accountService.updateAccount(a.id, { allowlist });
      emit(
        o.json,
        accountView(a),
        () => `created account ${a.id} (${a.name}, ${a.accountType}, tier ${a.tier}, balance $${formatNanos(a.balanceNanos)})`,
      );
    }),
  );

  examples(
    withCommonOptions(
      withAllowlistOptions(
        accounts
          .command('update')
          .description("change an account's tier, default model, status, rate limits or allowlist")
          .requiredOption('--account <id>', 'the account id (acct_...)')
          .option('--tier <tier>', 'rate-limit tier')
          .option('--default-model <model>', 'model used when a request names none (checked against the catalog)')
          .option('--active <true|false>', 'false refuses every request of the account', bool)
          .option('--rpm <n>', 'override: requests per minute per key', positiveInt)
          .option('--rpd <n|none>', 'override: requests per day per key (none: no daily cap)', (v: string) =>
            v === 'none' ? 'none' : positiveInt(v),
          )
          .option('--clear-limits', "drop the rate-limit overrides (back to the tier's)")
          .option(
            '--retention-days <n|none>',
            "days the account's generation records are kept (none: the tier's, else records.retention_days)",
            (v: string) => (v === 'none' ? 'none' : retentionDays(v)),
          )
          .option(
            '--guardrails <json|none>',
            'the rules applied to every text its requests send, as the admin API takes them (docs/governance.md#guardrails); none: no rules',
          )
          .option('--budget <usd|none>', 'what the account may spend per --budget-reset window, refused beyond it (none: no budget)')
          .option('--budget-reset <daily|weekly|monthly|none>', "the budget's UTC window (none: the account's whole usage)")
          .option('--budget-alerts <percents|default>', 'budget.threshold percentages, e.g. 50,80,100 (default: alerts.thresholds)'),
      ),
    ),
    [
      'switchyard accounts update --account acct_123 --default-model openai/gpt-4.1',
      'switchyard accounts update --account acct_123 --rpm 120 --rpd none',
      'switchyard accounts update --account acct_123 --active false',
      'switchyard accounts update --account acct_123 --retention-days 400',
      'switchyard accounts update --account acct_123 --allowed-models "anthropic/*" --max-price prompt=3',
      'switchyard accounts update --account acct_123 --guardrails \'[{"detector":"email","action":"redact"},{"detector":"payment_card","action":"block"}]\'',
      'switchyard accounts update --account acct_123 --budget 100 --budget-reset monthly',
    ],
  ).action((o: UpdateOptions) =>
    withStores(o, async (s) => {
      const current = await requireAccount(s, o.account);
      const patch: Parameters<typeof s.accountService.updateAccount>[1] = {};
      if (o.tier !== undefined) patch.tier = o.tier;
      if (o.defaultModel !== undefined) patch.defaultModel = checkModelName(s.config, o.defaultModel);
      if (o.active !== undefined) patch.isActive = o.active;
      if (o.clearLimits === true) patch.limitsOverride = null;
      else if (o.rpm !== undefined || o.rpd !== undefined) {
        const next = { ...(current.limitsOverride ?? {}) };
        if (o.rpm !== undefined) next.requests_per_minute = o.rpm;
        if (o.rpd !== undefined) next.requests_per_day = o.rpd === 'none' ? null : o.rpd;
        patch.limitsOverride = next;
      }
      if (o.retentionDays !== undefined) patch.retentionDays = o.retentionDays === 'none' ? null : o.retentionDays;
      const allowlist = allowlistChangeOf(o);
      if (allowlist !== null) patch.allowlist = applyAllowlist(current.allowlist, allowlist);
      if (o.guardrails !== undefined)
        patch.guardrails = readGuardrails(o.guardrails === 'none' ? null : parseJson(o.guardrails, '--guardrails'));
      const budget = budgetOf(current, o);
      if (budget !== undefined) patch.budget = budget;
      if (Object.keys(patch).length === 0) {
        throw new UsageError(
          'nothing to update: give --tier, --default-model, --active, --rpm, --rpd, --clear-limits, --retention-days, --allowed-models, --allowed-providers, --max-price, --guardrails or --budget',
        );
      }
      const a = await s.accountService.updateAccount(o.account, patch);
      emit(
        o.json,
        accountView(a),
        () =>
          `updated account ${a.id} (tier ${a.tier}, default model ${a.defaultModel ?? 'none'}, ${a.isActive ? 'active' : 'inactive'}; allowlist ${describeAllowlist(a.allowlist)})`,
      );
    }),
  );

  examples(withCommonOptions(accounts.command('list').description('list every account with its balance')), [
    'switchyard accounts list',
    'switchyard accounts list --json',
  ]).action((o: CommonOptions) =>
    withStores(o, async (s) => {
      const all = await s.stores.accounts.listAccounts();
      emit(o.json, all.map(accountView), () =>
        all.length === 0
          ? 'no accounts'
          : renderTable(
              ['ID', 'NAME', 'TYPE', 'TIER', 'BALANCE', 'DEFAULT MODEL', 'STATUS'],
              all.map((a) => [
                a.id,
                a.name,
                a.accountType,
                a.tier,
                `$${formatNanos(a.balanceNanos)}`,
                a.defaultModel ?? '-',
                a.isActive ? 'active' : 'inactive',
              ]),
              [4],
            ),
      );
    }),
  );
}

/** The account, or a clear error naming the id (exit 1). */
export async function requireAccount(s: CliStores, id: string): Promise<AccountRecord> {
  const a = await s.stores.accounts.getAccount(id);
  if (a === undefined) throw new UsageError(`no account ${id} (switchyard accounts list shows them)`);
  return a;
}

function parseJson(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${option} takes JSON (an array of rules) or none`);
  }
}

/** The budget the --budget* options ask for: undefined unchanged, null cleared (the admin API's rules, budgets.ts). */
function budgetOf(current: AccountRecord, o: UpdateOptions): AccountBudget | null | undefined {
  if (o.budget === undefined && o.budgetReset === undefined && o.budgetAlerts === undefined) return undefined;
  if (o.budget === 'none') return null;
  const base = current.budget;
  if (o.budget === undefined && base === null) throw new UsageError('the account has no budget: give --budget <usd> too');
  const input: Record<string, unknown> = {
    amount: o.budget ?? formatNanos(base!.amountNanos),
    reset: o.budgetReset === undefined ? (base?.reset ?? null) : o.budgetReset === 'none' ? null : o.budgetReset,
    alert_thresholds:
      o.budgetAlerts === undefined
        ? (base?.alertThresholds ?? null)
        : o.budgetAlerts === 'default'
          ? null
          : o.budgetAlerts.split(',').map((t) => Number(t.trim())),
  };
  try {
    return readBudget(input);
  } catch (err) {
    throw new UsageError(
      (err as Error).message
        .replace(/"budget\.amount"/, '--budget')
        .replace(/"budget\.reset"/, '--budget-reset')
        .replace(/"budget\.alert_thresholds"/, '--budget-alerts'),
    );
  }
}

function retentionDays(v: string): number {
  const n = positiveInt(v);
  if (n > MAX_RETENTION_DAYS) throw new InvalidArgumentError(`at most ${MAX_RETENTION_DAYS} days.`);
  return n;
}
