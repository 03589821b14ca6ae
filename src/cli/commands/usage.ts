import { Option, type Command } from 'commander';
import { formatNanos } from '../../money/money.ts';
import type { UsageGrouping } from '../../store/usage-records.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores } from '../open-cli-stores.ts';
import { emit, renderTable } from '../output.ts';
import { checkRange, isoDate } from '../parse-values.ts';
import { requireAccount } from './accounts.ts';

interface UsageOptions extends CommonOptions {
  account: string;
  by: UsageGrouping;
  since?: string;
  until?: string;
}

export function usageCommand(program: Command): void {
  examples(
    withCommonOptions(
      program
        .command('usage')
        .description("an account's requests, tokens and cost, by day, model or key")
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .addOption(new Option('--by <grouping>', 'group by').choices(['day', 'model', 'key']).default('day'))
        .option('--since <date>', 'from this ISO 8601 date or time (inclusive, UTC)', isoDate)
        .option('--until <date>', 'up to this ISO 8601 date or time (exclusive, UTC)', isoDate),
    ),
    [
      'switchyard usage --account acct_123',
      'switchyard usage --account acct_123 --by model --since 2026-11-01',
      'switchyard usage --account acct_123 --by key --json',
    ],
  ).action((o: UsageOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      checkRange(o.since, o.until);
      const range: { since?: string; until?: string } = {};
      if (o.since !== undefined) range.since = o.since;
      if (o.until !== undefined) range.until = o.until;
      const rows = await s.stores.usage.byAccount(o.account, o.by, range);
      const labels =
        o.by === 'key' ? new Map((await s.stores.accounts.listKeys(o.account)).map((k) => [k.hash, k.label])) : new Map<string, string>();
      const total = rows.reduce((sum, r) => sum + r.costNanos, 0n);
      emit(
        o.json,
        {
          account_id: o.account,
          by: o.by,
          since: o.since ?? null,
          until: o.until ?? null,
          total_cost: formatNanos(total),
          rows: rows.map((r) => ({
            [o.by]: r.group,
            ...(o.by === 'key' ? { label: labels.get(r.group) ?? null } : {}),
            requests: r.requests,
            errors: r.errors,
            prompt_tokens: r.tokensPrompt,
            completion_tokens: r.tokensCompletion,
            cost: formatNanos(r.costNanos),
          })),
        },
        () => {
          if (rows.length === 0)
            return `no usage for ${o.account}${o.since === undefined && o.until === undefined ? '' : ' in that range'}`;
          const table = renderTable(
            [o.by.toUpperCase(), 'REQUESTS', 'ERRORS', 'PROMPT TOKENS', 'COMPLETION TOKENS', 'COST'],
            rows.map((r) => [
              o.by === 'key' ? (labels.get(r.group) ?? r.group) : r.group,
              String(r.requests),
              String(r.errors),
              String(r.tokensPrompt),
              String(r.tokensCompletion),
              `$${formatNanos(r.costNanos)}`,
            ]),
            [1, 2, 3, 4, 5],
          );
          return `${table}\ntotal cost: $${formatNanos(total)}`;
        },
      );
    }),
  );
}
