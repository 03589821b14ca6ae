import type { Command } from 'commander';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores } from '../open-cli-stores.ts';
import { emit, ReportedFailure } from '../output.ts';

export function auditCommand(program: Command): void {
  const audit = examples(program.command('audit').description('check the admin audit log'), ['switchyard audit verify']);

  examples(
    withCommonOptions(
      audit
        .command('verify')
        .description(
          "walk the audit log's hash chain (each entry carries the hash of the one before it); exits 1 naming the first entry that was changed, removed or inserted",
        ),
    ),
    ['switchyard audit verify', 'DATABASE_URL=postgres://switchyard:pw@db:5432/switchyard switchyard audit verify --json'],
  ).action((o: CommonOptions) =>
    withStores(o, async (s) => {
      const r = await s.stores.audit.verify();
      if (r.broken === null) {
        emit(o.json, { ok: true, checked: r.checked }, () => `audit log intact: ${r.checked} entries chained`);
        return;
      }
      emit(
        o.json,
        { ok: false, checked: r.checked, broken: r.broken },
        () => `audit log broken at entry ${r.broken!.id}: ${r.broken!.reason} (${r.checked} entries before it are intact)`,
      );
      throw new ReportedFailure();
    }),
  );
}
