import type { Command } from 'commander';
import { formatNanos } from '../../money/money.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores } from '../open-cli-stores.ts';
import { emit, UsageError } from '../output.ts';
import { positiveUsd, signedUsd } from '../parse-values.ts';
import { requireAccount } from './accounts.ts';
import { money } from '../../server/routes/admin/admin-common.ts';

interface AddOptions extends CommonOptions {
  account: string;
  amount: string;
}
interface AdjustOptions extends AddOptions {
  reason: string;
}

export function creditsCommand(program: Command): void {
  const credits = examples(program.command('credits').description('add credits to an account, or correct its balance'), [
    'switchyard credits add --account acct_123 --amount 20',
    'switchyard credits adjust --account acct_123 --amount -5 --reason "refund reversal"',
  ]);

  examples(
    withCommonOptions(
      credits
        .command('add')
        .description('add credits (a positive amount; to take credits away, use adjust)')
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .requiredOption('--amount <usd>', 'USD to add, e.g. 20 or 12.50', positiveUsd),
    ),
    ['switchyard credits add --account acct_123 --amount 20'],
  ).action((o: AddOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      const balance = await s.accountService.addCredits(o.account, o.amount, 'added by operator');
      emit(o.json, { account_id: o.account, ...money('balance', balance) }, () => `account ${o.account} balance: $${formatNanos(balance)}`);
    }),
  );

  examples(
    withCommonOptions(
      credits
        .command('adjust')
        .description('an operator correction either way, with its reason on the ledger')
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .requiredOption('--amount <usd>', 'USD, negative to take away (e.g. -5)', signedUsd)
        .requiredOption('--reason <text>', 'why: kept on the ledger row'),
    ),
    [
      'switchyard credits adjust --account acct_123 --amount -5 --reason "refund reversal"',
      'switchyard credits adjust --account acct_123 --amount 1.25 --reason goodwill',
    ],
  ).action((o: AdjustOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      if (o.reason.trim() === '') throw new UsageError('--reason: an adjustment needs a reason (it is kept on the ledger row)');
      const balance = await s.accountService.adjustCredits(o.account, o.amount, o.reason);
      emit(
        o.json,
        { account_id: o.account, ...money('balance', balance) },
        () => `account ${o.account} adjusted; balance: $${formatNanos(balance)}`,
      );
    }),
  );
}
