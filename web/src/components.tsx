import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import uPlot from 'uplot';

/** Loading, error and empty states around a view. */
export function Loadable({
  loading,
  error,
  empty,
  children,
}: {
  loading: boolean;
  error: string | undefined;
  empty?: boolean;
  children: ComponentChildren;
}) {
  if (error !== undefined)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (loading)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (empty === true) return <p class="empty">Nothing here yet.</p>;
  return <>{children}</>;
}

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ComponentChildren;
  /** The value sorted on; absent: not sortable. */
  sort?: (row: T) => string | number;
  numeric?: boolean;
}

/** A table with sortable columns and pages of `pageSize` rows (client side). */
export function Table<T>({
  rows,
  columns,
  pageSize = 25,
  label,
  onRow,
  rowKey,
}: {
  rows: T[];
  columns: Column<T>[];
  pageSize?: number;
  label: string;
  onRow?: (row: T) => void;
  rowKey: (row: T) => string;
}) {
  const [sortKey, setSortKey] = useState<string | null>(null);
  const [desc, setDesc] = useState(false);
  const [pageNo, setPageNo] = useState(0);
  const sorted = useMemo(() => {
    const col = columns.find((c) => c.key === sortKey);
    if (col?.sort === undefined) return rows;
    const get = col.sort;
    return [...rows].sort((a, b) => {
      const x = get(a);
      const y = get(b);
      const r = x < y ? -1 : x > y ? 1 : 0;
      return desc ? -r : r;
    });
  }, [rows, columns, sortKey, desc]);
  const pages = Math.max(1, Math.ceil(sorted.length / pageSize));
  const current = Math.min(pageNo, pages - 1);
  const shown = sorted.slice(current * pageSize, (current + 1) * pageSize);
  const clickSort = (key: string): void => {
    if (sortKey === key) setDesc(!desc);
    else {
      setSortKey(key);
      setDesc(false);
    }
  };
  return (
    <div class="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                scope="col"
                class={c.numeric === true ? 'num' : ''}
                aria-sort={sortKey === c.key ? (desc ? 'descending' : 'ascending') : undefined}
              >
                {c.sort === undefined ? (
                  c.label
                ) : (
                  <button type="button" class="sort" onClick={() => clickSort(c.key)}>
                    {c.label}
                    {sortKey === c.key ? (desc ? ' ▼' : ' ▲') : ''}
                  </button>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr
              key={rowKey(row)}
              class={onRow === undefined ? '' : 'clickable'}
              tabIndex={onRow === undefined ? undefined : 0}
              onClick={onRow === undefined ? undefined : () => onRow(row)}
              onKeyDown={
                onRow === undefined
                  ? undefined
                  : (e) => {
                      if (e.key === 'Enter') onRow(row);
                    }
              }
            >
              {columns.map((c) => (
                <td class={c.numeric === true ? 'num' : ''} data-label={c.label}>
                  <div class="cell">{c.render(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <div class="pager">
          <button type="button" disabled={current === 0} onClick={() => setPageNo(current - 1)}>
            Previous
          </button>
          <span>
            Page {current + 1} of {pages}
          </span>
          <button type="button" disabled={current >= pages - 1} onClick={() => setPageNo(current + 1)}>
            Next
          </button>
        </div>
      )}
    </div>
  );
}

/** A bar/line chart over days (uPlot). `series` values per day. */
export function DayChart({
  days,
  series,
  label,
}: {
  days: string[];
  series: { label: string; values: number[]; color: string }[];
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({ label: s.label, stroke: s.color, fill: `${s.color}33`, width: 2, scale: i === 0 ? 'y' : 'y2' })),
        ],
        axes: [
          {},
          { scale: 'y' },
          ...(series.length > 1
            ? [
                {
                  scale: 'y2',
                  side: 1 as const,
                  grid: { show: false },
                  size: 100,
                  values: (_u: uPlot, vals: number[]) => vals.map((v) => `$${Number(v.toPrecision(2))}`),
                },
              ]
            : []),
        ],
        scales: {
          x: { time: true },
          y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, max)] },
          y2: { range: (_u: uPlot, _min: number, max: number) => [0, max > 0 ? max : 1] },
        },
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const resize = (): void => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [days, series]);
  return <div class="chart" ref={ref} role="img" aria-label={label} />;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        );
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div class="stat">
      <div class="stat-label">{label}</div>
      <div class="stat-value" data-testid={testId}>
        {value}
      </div>
    </div>
  );
}
