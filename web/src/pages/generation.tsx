import { useEffect, useRef } from 'preact/hooks';
import { Loadable } from '../components.tsx';
import { cost, time } from '../format.ts';
import { useApi } from '../use-api.ts';
import type { Row } from './activity.tsx';

/** One generation record, whole: a dialog over the list. */
export function Generation({ row, scope, onClose }: { row: Row; scope: 'account' | 'admin'; onClose: () => void }) {
  const path = scope === 'admin' ? `/admin/generations/${encodeURIComponent(row.id)}` : `/generation?id=${encodeURIComponent(row.id)}`;
  const rec = useApi<{ data: Record<string, unknown> }>(path);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const attempts = (rec.data?.data.attempts as unknown[] | undefined) ?? [];
  return (
    <dialog ref={ref} class="record" onClose={onClose} aria-label={`Generation ${row.id}`}>
      <h2>Generation <code>{row.id}</code></h2>
      <p>{time(row.created_at)} · {row.model ?? '—'} · {cost(row.total_cost_usd)} · {attempts.length} attempt(s)</p>
      <Loadable loading={rec.loading} error={rec.error}>
        <pre class="json">{JSON.stringify(rec.data?.data ?? {}, null, 2)}</pre>
      </Loadable>
      <form method="dialog"><button type="submit">Close</button></form>
    </dialog>
  );
}
