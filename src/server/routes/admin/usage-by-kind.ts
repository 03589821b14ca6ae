import type { Catalog } from '../../../catalog/catalog.ts';
import type { UsageCursor, UsageFigures, UsageGroupRow } from '../../../store/usage-records.ts';
import type { AdminStores } from './admin-stores.ts';

// `group_by=kind` of the usage aggregates: chat, embedding, image, speech, transcription.
// The rollups are kept per model, and a model serves one kind, so the per-model sums are
// folded by the kind the catalog in force gives each model (a handful of groups, from at most
// as many models as the catalog has had). A model no longer in the catalog, or a record
// without one, counts under a null group. Ordered like the other groups: highest cost
// first, ties by name; the cursor is the same `[cost, group]`.

export async function usageByKind(
  stores: Pick<AdminStores, 'usage'>,
  catalog: Catalog,
  accountId: string | null,
  from: string,
  to: string,
  after: UsageCursor | null,
  limit: number,
  memberId?: string,
): Promise<UsageGroupRow[]> {
  const byModel = await stores.usage.aggregate(accountId, 'model', from, to, undefined, memberId);
  const byKind = new Map<string | null, UsageGroupRow>();
  for (const row of byModel) {
    const kind = row.group === null ? null : (catalog.get(row.group)?.kind ?? null);
    const sum = byKind.get(kind);
    if (sum === undefined) byKind.set(kind, { ...row, group: kind });
    else add(sum, row);
  }
  const rows = [...byKind.values()].sort((a, b) =>
    a.costNanos === b.costNanos ? (a.group ?? '').localeCompare(b.group ?? '') : a.costNanos > b.costNanos ? -1 : 1,
  );
  const start = after === null || after.length !== 2 ? 0 : firstAfter(rows, BigInt(after[0]), after[1]);
  return rows.slice(start, start + limit);
}

function firstAfter(rows: UsageGroupRow[], cost: bigint, group: string): number {
  const i = rows.findIndex((r) => r.costNanos < cost || (r.costNanos === cost && (r.group ?? '') > group));
  return i === -1 ? rows.length : i;
}

function add(sum: UsageFigures, row: UsageFigures): void {
  sum.requests += row.requests;
  sum.errors += row.errors;
  sum.tokensPrompt += row.tokensPrompt;
  sum.tokensCompletion += row.tokensCompletion;
  sum.tokensCacheRead += row.tokensCacheRead;
  sum.tokensCacheWrite += row.tokensCacheWrite;
  sum.tokensReasoning += row.tokensReasoning;
  sum.costNanos += row.costNanos;
  sum.latencyMsSum += row.latencyMsSum;
  sum.latencyCount += row.latencyCount;
}
