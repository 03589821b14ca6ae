import { useMemo, useState } from 'preact/hooks';
import { qs } from '../api.ts';
import { DayChart, Loadable, Stat, Table } from '../components.tsx';
import { dayAgo, int, spend } from '../format.ts';
import { decimalOf, nanosOf } from '../decimal.ts';
import { useAllPages, useApi } from '../use-api.ts';
import { useAccountNames } from '../account-names.tsx';
import type { UsageRow } from '../api/types.ts';

// The operator's usage across accounts (GET /admin/usage, from the daily rollups): requests
// and spend per day, per account, model, provider or key over 30 days, and the top movers:
// the groups whose spend changed most between the last 7 days and the 7 before.

type Figures = UsageRow;
type GroupBy = 'account' | 'model' | 'provider' | 'key';
const GROUP_LABEL: Record<GroupBy, string> = { account: 'Account', model: 'Model', provider: 'Provider', key: 'Key' };

interface Row {
  group: string;
  requests: number;
  spend: bigint;
  week: bigint;
  before: bigint;
  change: bigint;
}

/** "+$1.20", "-$0.30", "$0.00". */
function signed(nanos: bigint): string {
  if (nanos === 0n) return spend('0');
  return `${nanos > 0n ? '+' : '-'}${spend(decimalOf(nanos < 0n ? -nanos : nanos))}`;
}

export function AdminUsage() {
  const [groupBy, setGroupBy] = useState<GroupBy>('account');
  const days = useApi<{ data: Figures[]; totals: Figures }>(`/admin/usage${qs({ group_by: 'day', from: dayAgo(29), limit: 200 })}`);
  const month = useAllPages<Figures>(`/admin/usage${qs({ group_by: groupBy, from: dayAgo(29), limit: 200 })}`);
  const week = useAllPages<Figures>(`/admin/usage${qs({ group_by: groupBy, from: dayAgo(6), limit: 200 })}`);
  const prior = useAllPages<Figures>(`/admin/usage${qs({ group_by: groupBy, from: dayAgo(13), to: dayAgo(7), limit: 200 })}`);
  const accountNames = useAccountNames(true);
  const keys = useAllPages<{ hash: string; name: string }>(groupBy === 'key' ? '/admin/keys?limit=200' : null);
  const keyNames = new Map((keys.data?.data ?? []).map((k) => [k.hash, k.name]));
  const nameOf = (g: string): string =>
    (groupBy === 'account' ? accountNames.get(g) : groupBy === 'key' ? keyNames.get(g) : undefined) ?? g;

  const dayLabels = useMemo(() => Array.from({ length: 30 }, (_, i) => dayAgo(29 - i)), [days.data]);
  const series = useMemo(() => {
    const byDay = new Map((days.data?.data ?? []).map((d) => [d.group ?? '', d]));
    return [
      { label: 'Requests', values: dayLabels.map((d) => byDay.get(d)?.requests ?? 0), color: '#2563eb' },
      { label: 'Spend (USD)', values: dayLabels.map((d) => byDay.get(d)?.cost ?? 0), color: '#16a34a' },
    ];
  }, [days.data, dayLabels]);

  // One row per group seen in the 30 days; the two weeks' spend exact (bigint nano-USD).
  const rows = useMemo<Row[]>(() => {
    const spendBy = (list: Figures[] | undefined) => new Map((list ?? []).map((f) => [f.group ?? '', nanosOf(f.cost_usd)]));
    const [w, p] = [spendBy(week.data?.data), spendBy(prior.data?.data)];
    return (month.data?.data ?? []).map((f) => {
      const group = f.group ?? '';
      const thisWeek = w.get(group) ?? 0n;
      const before = p.get(group) ?? 0n;
      return { group, requests: f.requests, spend: nanosOf(f.cost_usd), week: thisWeek, before, change: thisWeek - before };
    });
  }, [month.data, week.data, prior.data]);
  const movers = [...rows]
    .filter((r) => r.change !== 0n)
    .sort((a, b) => {
      const x = a.change < 0n ? -a.change : a.change;
      const y = b.change < 0n ? -b.change : b.change;
      return x > y ? -1 : x < y ? 1 : 0;
    })
    .slice(0, 5);
  const loading = month.loading || week.loading || prior.loading;
  const error = month.error ?? week.error ?? prior.error;
  const cmp =
    (get: (r: Row) => bigint) =>
    (r: Row): string =>
      decimalOf(get(r) + 10n ** 18n).padStart(30, '0');

  return (
    <>
      <section class="stats" aria-label="All accounts, 30 days">
        <Stat label="Requests, 30 days" value={int(days.data?.totals.requests)} testId="usage-requests" />
        <Stat label="Spend, 30 days" value={spend(days.data?.totals.cost_usd)} testId="usage-spend" />
      </section>
      <section>
        <h2>Requests and spend per day, all accounts</h2>
        <Loadable loading={days.loading} error={days.error} empty={(days.data?.data ?? []).length === 0}>
          <DayChart days={dayLabels} series={series} label="Requests and spend per day, all accounts, last 30 days" />
        </Loadable>
      </section>
      <form class="card filters" aria-label="Group" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="u-group">Group by</label>
          <select id="u-group" value={groupBy} onChange={(e) => setGroupBy((e.target as HTMLSelectElement).value as GroupBy)}>
            {(Object.keys(GROUP_LABEL) as GroupBy[]).map((g) => (
              <option value={g}>{GROUP_LABEL[g].toLowerCase()}</option>
            ))}
          </select>
        </div>
      </form>
      <Loadable loading={loading} error={error} empty={rows.length === 0}>
        <h2>Top movers, last 7 days against the 7 before</h2>
        {movers.length === 0 ? (
          <p class="empty">No change.</p>
        ) : (
          <Table
            label="Top movers"
            rows={movers}
            rowKey={(r) => r.group}
            columns={[
              { key: 'group', label: GROUP_LABEL[groupBy], render: (r) => <span data-testid="mover-name">{nameOf(r.group)}</span> },
              { key: 'change', label: 'Change', render: (r) => <span data-testid="mover-change">{signed(r.change)}</span>, numeric: true },
              { key: 'week', label: 'Last 7 days', render: (r) => spend(decimalOf(r.week)), numeric: true },
              { key: 'before', label: 'The 7 before', render: (r) => spend(decimalOf(r.before)), numeric: true },
            ]}
          />
        )}
        <h2>By {GROUP_LABEL[groupBy].toLowerCase()}, 30 days</h2>
        <Table
          label={`Usage by ${groupBy}`}
          rows={rows}
          rowKey={(r) => r.group}
          columns={[
            {
              key: 'group',
              label: GROUP_LABEL[groupBy],
              render: (r) => (
                <span data-testid="usage-name" title={r.group}>
                  {nameOf(r.group)}
                </span>
              ),
              sort: (r) => nameOf(r.group),
            },
            { key: 'requests', label: 'Requests', render: (r) => int(r.requests), sort: (r) => r.requests, numeric: true },
            {
              key: 'spend',
              label: 'Spend',
              render: (r) => <span data-testid="usage-spend">{spend(decimalOf(r.spend))}</span>,
              sort: cmp((r) => r.spend),
              numeric: true,
            },
            { key: 'week', label: 'Last 7 days', render: (r) => spend(decimalOf(r.week)), sort: cmp((r) => r.week), numeric: true },
            { key: 'change', label: 'Change', render: (r) => signed(r.change), sort: cmp((r) => r.change), numeric: true },
          ]}
        />
      </Loadable>
    </>
  );
}
