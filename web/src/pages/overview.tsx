import { useMemo } from 'preact/hooks';
import { qs } from '../api.ts';
import { DayChart, Loadable, Stat, Table } from '../components.tsx';
import { dayAgo, int, spend, usd } from '../format.ts';
import { useApi } from '../use-api.ts';

import type { UsageReport as Usage } from '../api/types.ts';

export function Overview() {
  const month = useApi<Usage>(`/usage${qs({ group_by: 'day' })}`);
  const week = useApi<Usage>(`/usage${qs({ group_by: 'day', from: dayAgo(6) })}`);
  const today = useApi<Usage>(`/usage${qs({ group_by: 'day', from: dayAgo(0) })}`);
  const models = useApi<Usage>(`/usage${qs({ group_by: 'model' })}`);
  const apps = useApi<Usage>(`/usage${qs({ group_by: 'app' })}`);
  const kinds = useApi<Usage>(`/usage${qs({ group_by: 'kind' })}`);
  const days = month.data?.data ?? [];
  // Every day of the 30, days without requests as zero (the API lists days with some).
  const dayLabels = useMemo(() => Array.from({ length: 30 }, (_, i) => dayAgo(29 - i)), [month.data]);
  const series = useMemo(() => {
    const byDay = new Map(days.map((d) => [d.group ?? '', d]));
    return [
      { label: 'Requests', values: dayLabels.map((d) => byDay.get(d)?.requests ?? 0), color: '#2563eb' },
      { label: 'Spend (USD)', values: dayLabels.map((d) => byDay.get(d)?.cost ?? 0), color: '#16a34a' },
    ];
  }, [days, dayLabels]);
  return (
    <>
      <section class="stats" aria-label="Balance and spend">
        <Stat label="Balance" value={usd(month.data?.balance_usd)} testId="balance" />
        <Stat label="Spend today" value={spend(today.data?.totals.cost_usd)} testId="spend-today" />
        <Stat label="Spend, 7 days" value={spend(week.data?.totals.cost_usd)} />
        <Stat label="Spend, 30 days" value={spend(month.data?.totals.cost_usd)} />
      </section>
      <section>
        <h2>Requests and spend per day</h2>
        <Loadable loading={month.loading} error={month.error} empty={days.length === 0}>
          <DayChart days={dayLabels} series={series} label="Requests and spend per day, last 30 days" />
        </Loadable>
      </section>
      <div class="two">
        <section>
          <h2>Top models</h2>
          <TopTable usage={models} label="Top models" />
        </section>
        <section>
          <h2>Top apps</h2>
          <TopTable usage={apps} label="Top apps" />
        </section>
      </div>
      <section>
        <h2>By kind</h2>
        <TopTable usage={kinds} label="Usage by kind" />
      </section>
    </>
  );
}

function TopTable({ usage, label }: { usage: ReturnType<typeof useApi<Usage>>; label: string }) {
  const rows = [...(usage.data?.data ?? [])].sort((a, b) => b.requests - a.requests).slice(0, 10);
  return (
    <Loadable loading={usage.loading} error={usage.error} empty={rows.length === 0}>
      <Table
        label={label}
        rows={rows}
        rowKey={(r) => r.group ?? '(none)'}
        columns={[
          { key: 'group', label: 'Name', render: (r) => r.group ?? '(none)', sort: (r) => r.group ?? '' },
          { key: 'requests', label: 'Requests', render: (r) => int(r.requests), sort: (r) => r.requests, numeric: true },
          {
            key: 'cost',
            label: 'Spend',
            render: (r) => <span data-testid="top-spend">{spend(r.cost_usd)}</span>,
            sort: (r) => r.cost,
            numeric: true,
          },
        ]}
      />
    </Loadable>
  );
}
