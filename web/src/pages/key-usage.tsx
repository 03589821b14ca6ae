import { useMemo } from 'preact/hooks';
import { DayChart, Loadable, Table } from '../components.tsx';
import { int, spend } from '../format.ts';
import { useApi } from '../use-api.ts';

import type { KeyUsageDay as Day } from '../api/types.ts';

/** One key's requests and spend per UTC day over the last 30 days: a chart and a table. */
export function KeyUsage({ path, name, onClose }: { path: string; name: string; onClose: () => void }) {
  const usage = useApi<{ data: Day[]; totals: { requests: number; cost_usd: string } }>(path);
  const days = usage.data?.data ?? [];
  const series = useMemo(
    () => [
      { label: 'Requests', values: days.map((d) => d.requests), color: '#2563eb' },
      { label: 'Spend (USD)', values: days.map((d) => d.cost), color: '#16a34a' },
    ],
    [usage.data],
  );
  const labels = useMemo(() => days.map((d) => d.day), [usage.data]);
  const used = [...days].filter((d) => d.requests > 0).reverse();
  return (
    <section class="card" aria-label={`Usage of ${name}`} data-testid="key-usage">
      <h2>Usage of {name}, last 30 days</h2>
      <Loadable loading={usage.loading} error={usage.error}>
        <p>
          {int(usage.data?.totals.requests ?? 0)} {usage.data?.totals.requests === 1 ? 'request' : 'requests'},{' '}
          {spend(usage.data?.totals.cost_usd)} <span class="hint">(UTC days)</span>
        </p>
        <DayChart days={labels} series={series} label={`Requests and spend per day of ${name}`} />
        {used.length === 0 ? (
          <p class="empty">No requests in these 30 days.</p>
        ) : (
          <Table
            label={`Usage per day of ${name}`}
            rows={used}
            pageSize={10}
            rowKey={(d) => d.day}
            columns={[
              { key: 'day', label: 'Day (UTC)', render: (d) => d.day, sort: (d) => d.day },
              { key: 'requests', label: 'Requests', render: (d) => int(d.requests), sort: (d) => d.requests, numeric: true },
              {
                key: 'cost',
                label: 'Spend',
                render: (d) => <span data-testid="key-day-cost">{spend(d.cost_usd)}</span>,
                sort: (d) => d.cost,
                numeric: true,
              },
            ]}
          />
        )}
      </Loadable>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
