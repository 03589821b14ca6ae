import type { Command } from 'commander';
import { checkBudget } from '../../billing/member-input.ts';
import { MemberService, type RemovedKeys } from '../../billing/member-service.ts';
import type { AuditActor } from '../../store/audit-records.ts';
import { formatNanos } from '../../money/money.ts';
import type { MemberRecord } from '../../store/member-store.ts';
import { WebhookDispatcher } from '../../server/webhooks/webhook-dispatcher.ts';
import { memberView } from '../../server/routes/members-routes.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores, type CliStores } from '../open-cli-stores.ts';
import { emit, renderTable, UsageError } from '../output.ts';
import { requireAccount } from './accounts.ts';

// `switchyard members`: an account's members and roles (docs/governance.md), as the operator
// on the gateway's machine. Changes are audited as the operator's CLI and queued for the
// account's webhooks (the serving gateway delivers them).

interface BudgetOptions {
  budget?: string;
  budgetReset?: string;
}
interface AddOptions extends CommonOptions, BudgetOptions {
  account: string;
  email: string;
  name?: string;
  role?: string;
}
interface UpdateOptions extends CommonOptions, BudgetOptions {
  name?: string;
  role?: string;
}
interface RemoveOptions extends CommonOptions {
  keys?: string;
  to?: string;
}

function service(s: CliStores): MemberService {
  const webhooks = new WebhookDispatcher({
    stores: s.stores,
    config: () => s.config.webhooks,
    now: Date.now,
    log: (m) => process.stderr.write(`${m}\n`),
  });
  return new MemberService(s.stores, {
    changed: (accountId) => s.accountService.announce({ accountId }),
    keyChanged: (accountId, keyHash) => s.accountService.announce({ accountId, keyHash }),
    emit: (accountId, type, data) => webhooks.emit(accountId, type, data),
  });
}

/**
 * The `budget` the --budget options ask for, as the API takes it: undefined unchanged, null
 * cleared; --budget-reset alone changes the window of the member's budget. Checked by the
 * service (member-input.ts); its refusal names the option here.
 */
function memberBudget(current: MemberRecord | null, o: BudgetOptions): { amount: string; reset: string } | null | undefined {
  if (o.budget === undefined && o.budgetReset === undefined) return undefined;
  if (o.budget === 'none') return null;
  const base = current?.budget ?? null;
  const amount = o.budget ?? (base === null ? undefined : formatNanos(base.amountNanos));
  if (amount === undefined) throw new UsageError('the member has no budget: give --budget <usd> too');
  const input = { amount, reset: o.budgetReset ?? base?.reset ?? 'none' };
  try {
    checkBudget(input);
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/"budget\.amount"/, '--budget').replace(/"budget\.reset"/, '--budget-reset'));
  }
  return input;
}

const operator = (accountId: string): AuditActor => ({ keyHash: 'cli', label: 'operator (CLI)', accountId });

async function findMember(s: CliStores, id: string): Promise<MemberRecord> {
  const m = await s.stores.members.get(id);
  if (m === undefined) throw new UsageError(`no member "${id}" (switchyard members list --account <id> shows them)`);
  return m;
}

const line = (m: MemberRecord): string => `${m.id} ${m.email} (${m.name}), ${m.role}, account ${m.accountId}`;

export function membersCommand(program: Command): void {
  const members = examples(program.command('members').description("list, add, change and remove an account's members and their roles"), [
    'switchyard members list --account acct_123',
    'switchyard members add --account acct_123 --email ann@example.com --role admin',
    'switchyard members remove mem_abc --keys reassign --to mem_def',
  ]);

  examples(
    withCommonOptions(
      members.command('list').description("an account's members").requiredOption('--account <id>', 'the account id (acct_...)'),
    ),
    ['switchyard members list --account acct_123 --json'],
  ).action((o: CommonOptions & { account: string }) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      const all = await s.stores.members.list(o.account);
      emit(o.json, all.map(memberView), () =>
        all.length === 0
          ? 'no members'
          : renderTable(
              ['ID', 'EMAIL', 'NAME', 'ROLE', 'ADDED'],
              all.map((m) => [m.id, m.email, m.name, m.role, m.createdAt]),
            ),
      );
    }),
  );

  examples(
    withCommonOptions(
      members
        .command('add')
        .description('add a member to an account')
        .requiredOption('--account <id>', 'the account id (acct_...)')
        .requiredOption('--email <email>', 'their email address (unique in the account)')
        .option('--name <name>', 'display name (default: the part before @)')
        .option('--role <role>', 'owner, admin, member or viewer', 'member')
        .option('--budget <usd|none>', "what the member's keys may spend together per --budget-reset window, refused beyond it")
        .option('--budget-reset <daily|weekly|monthly|none>', "the budget's UTC window (none: their keys' whole usage)"),
    ),
    [
      'switchyard members add --account acct_123 --email ann@example.com --name Ann --role admin',
      'switchyard members add --account acct_123 --email bob@example.com --budget 50 --budget-reset monthly',
    ],
  ).action((o: AddOptions) =>
    withStores(o, async (s) => {
      await requireAccount(s, o.account);
      const budget = memberBudget(null, o);
      const m = await service(s).add(operator(o.account), o.account, {
        email: o.email,
        ...(o.name === undefined ? {} : { name: o.name }),
        role: o.role ?? 'member',
        ...(budget === undefined ? {} : { budget }),
      });
      emit(o.json, memberView(m), () => `added ${line(m)}`);
    }),
  );

  examples(
    withCommonOptions(
      members
        .command('update')
        .description("change a member's name, role or budget")
        .argument('<id>', 'the member id (mem_...)')
        .option('--name <name>', 'display name')
        .option('--role <role>', 'owner, admin, member or viewer')
        .option('--budget <usd|none>', "what the member's keys may spend together per window (none: no budget)")
        .option('--budget-reset <daily|weekly|monthly|none>', "the budget's UTC window"),
    ),
    ['switchyard members update mem_abc --role viewer', 'switchyard members update mem_abc --budget 20 --budget-reset daily'],
  ).action((id: string, o: UpdateOptions) =>
    withStores(o, async (s) => {
      const before = await findMember(s, id);
      const budget = memberBudget(before, o);
      if (o.name === undefined && o.role === undefined && budget === undefined)
        throw new UsageError('nothing to change: give --name, --role or --budget');
      const m = await service(s).update(operator(before.accountId), before, {
        ...(o.name === undefined ? {} : { name: o.name }),
        ...(o.role === undefined ? {} : { role: o.role }),
        ...(budget === undefined ? {} : { budget }),
      });
      emit(o.json, memberView(m), () => `updated ${line(m)}`);
    }),
  );

  examples(
    withCommonOptions(
      members
        .command('remove')
        .description('remove a member: their sessions end; their keys are disabled or reassigned')
        .argument('<id>', 'the member id (mem_...)')
        .option('--keys <choice>', 'disable or reassign (required)')
        .option('--to <member>', 'with --keys reassign: the member who gets the keys'),
    ),
    ['switchyard members remove mem_abc --keys disable', 'switchyard members remove mem_abc --keys reassign --to mem_def'],
  ).action((id: string, o: RemoveOptions) =>
    withStores(o, async (s) => {
      const m = await findMember(s, id);
      let keys: RemovedKeys;
      if (o.keys === 'disable' && o.to === undefined) keys = { action: 'disable' };
      else if (o.keys === 'reassign' && o.to !== undefined) keys = { action: 'reassign', to: o.to };
      else throw new UsageError('say what becomes of their keys: --keys disable, or --keys reassign --to <member id>');
      const out = await service(s).remove(operator(m.accountId), m, keys);
      emit(
        o.json,
        { deleted: true, keys: out.action, to: out.to, key_hashes: out.keys },
        () => `removed ${line(m)}; ${out.keys.length} key(s) ${out.action === 'disable' ? 'disabled' : `reassigned to ${out.to}`}`,
      );
    }),
  );
}
