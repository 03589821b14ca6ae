import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Option, type Command } from 'commander';
import { exportLines, type ExportFormat } from '../../server/generation-export.ts';
import type { ActivityFilter } from '../../store/activity-records.ts';
import { formatNanos } from '../../money/money.ts';
import type { GenerationFilter } from '../../store/generation-records.ts';
import { generationView } from '../../server/routes/generation-view.ts';
import { examples, withCommonOptions, type CommonOptions } from '../common-options.ts';
import { withStores, type CliStores } from '../open-cli-stores.ts';
import { emit, renderTable, UsageError } from '../output.ts';
import { checkRange, isoDate, positiveInt } from '../parse-values.ts';
import { requireAccount } from './accounts.ts';

interface ExportOptions extends CommonOptions {
  format: ExportFormat;
  account?: string;
  since?: string;
  until?: string;
  out?: string;
}

interface ListOptions extends CommonOptions {
  account?: string;
  key?: string;
  model?: string;
  status?: 'success' | 'error';
  since?: string;
  until?: string;
  limit: number;
}

export function generationsCommand(program: Command): void {
  const generations = examples(
    program.command('generations').description('the record of each request: model, provider, tokens, cost, attempts'),
    ['switchyard generations list --account acct_123', 'switchyard generations show gen-1732456789-abc'],
  );

  examples(
    withCommonOptions(
      generations
        .command('list')
        .description('list generation records, newest first')
        .option('--account <id>', "only this account's")
        .option('--key <key>', "only this key's (its hash or label)")
        .option('--model <model>', 'only this model id')
        .addOption(new Option('--status <status>', 'only successes or errors').choices(['success', 'error']))
        .option('--since <date>', 'from this ISO 8601 date or time (inclusive, UTC)', isoDate)
        .option('--until <date>', 'up to this ISO 8601 date or time (exclusive, UTC)', isoDate)
        .option('--limit <n>', 'at most this many (at most 1000)', (v: string) => Math.min(positiveInt(v), 1000), 20),
    ),
    [
      'switchyard generations list --account acct_123 --limit 50',
      'switchyard generations list --status error --since 2026-11-24',
      'switchyard generations list --key sk-sy-v1-3f9...c1a --model openai/gpt-4.1 --json',
    ],
  ).action((o: ListOptions) =>
    withStores(o, async (s) => {
      if (o.account !== undefined) await requireAccount(s, o.account);
      checkRange(o.since, o.until);
      const filter: GenerationFilter = { limit: o.limit };
      if (o.account !== undefined) filter.accountId = o.account;
      if (o.key !== undefined) filter.keyHash = await keyHash(s, o.key);
      if (o.model !== undefined) filter.model = o.model;
      if (o.status !== undefined) filter.status = o.status;
      if (o.since !== undefined) filter.since = o.since;
      if (o.until !== undefined) filter.until = o.until;
      const ids = await s.stores.generations.ids(filter);
      const records = await Promise.all(ids.map(async (id) => (await s.stores.generations.getRecord(id))!));
      emit(o.json, records.map(generationView), () =>
        records.length === 0
          ? 'no generations'
          : renderTable(
              ['ID', 'CREATED', 'ACCOUNT', 'MODEL', 'PROVIDER', 'STATUS', 'TOKENS IN', 'TOKENS OUT', 'COST', 'LATENCY'],
              records.map((g) => [
                g.id,
                g.createdAt,
                g.accountId,
                g.model ?? '-',
                g.provider ?? '-',
                g.status === 'success' ? 'success' : `error (${g.errorCode ?? '?'})`,
                String(g.tokensPrompt),
                String(g.tokensCompletion),
                `$${formatNanos(g.costNanos)}`,
                g.latencyMs === null ? '-' : `${g.latencyMs} ms`,
              ]),
              [6, 7, 8, 9],
            ),
      );
    }),
  );

  examples(
    withCommonOptions(
      generations
        .command('export')
        .description(
          'every generation record of a range as CSV or JSON lines, newest first, streamed (e.g. before the retention prunes them)',
        )
        .addOption(new Option('--format <format>', 'csv, or jsonl (one whole record per line)').choices(['csv', 'jsonl']).default('csv'))
        .option('--account <id>', "only this account's")
        .option('--since <date>', 'from this ISO 8601 date or time (inclusive, UTC)', isoDate)
        .option('--until <date>', 'up to this ISO 8601 date or time (exclusive, UTC)', isoDate)
        .option('--out <file>', 'write to this file (default: standard output)'),
    ),
    [
      'switchyard generations export --until 2026-10-01 --format jsonl --out before-october.jsonl',
      'switchyard generations export --account acct_123 --since 2026-11-01 > november.csv',
    ],
  ).action((o: ExportOptions) =>
    withStores(o, async (s) => {
      if (o.account !== undefined) await requireAccount(s, o.account);
      checkRange(o.since, o.until);
      const filter: ActivityFilter = {};
      if (o.account !== undefined) filter.accountId = o.account;
      if (o.since !== undefined) filter.from = o.since;
      if (o.until !== undefined) filter.to = o.until;
      const out = o.out === undefined ? process.stdout : createWriteStream(o.out);
      // Backpressure: the next page is read once the output has taken the last one.
      for await (const chunk of exportLines(s.stores.activity, filter, o.format)) {
        if (!out.write(chunk)) await once(out, 'drain');
      }
      if (o.out !== undefined) {
        out.end();
        await finished(out);
        process.stderr.write(`written to ${o.out}\n`);
      }
    }),
  );

  examples(
    withCommonOptions(
      generations
        .command('show')
        .description('every field of one generation record')
        .argument('<id>', 'the generation id (the x-generation-id response header, or from generations list)'),
    ),
    ['switchyard generations show gen-1732456789-abc'],
  ).action((id: string, o: CommonOptions) =>
    withStores(o, async (s) => {
      const g = await s.stores.generations.getRecord(id);
      if (g === undefined) throw new UsageError(`no generation ${id} (switchyard generations list shows recent ones)`);
      const json = generationView(g);
      emit(o.json, json, () =>
        Object.entries(json)
          .map(([k, v]) => `${`${k}:`.padEnd(22)} ${v === null ? '-' : typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join('\n'),
      );
    }),
  );
}

async function keyHash(s: CliStores, ref: string): Promise<string> {
  const key = await s.accountService.findKey(ref);
  if (key === undefined) throw new UsageError(`--key: no key matches "${ref}" (give its hash, or a label that only one key has)`);
  return key.hash;
}
