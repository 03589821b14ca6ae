import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { ms, shortTime } from '../format.ts';
import { useApi } from '../use-api.ts';
import { errorText } from './key-forms.tsx';

import type { List, Webhook, WebhookDelivery } from '../api/types.ts';

// A webhook's deliveries, newest first (GET /webhooks/{id}/deliveries): each attempt's HTTP
// status (or error) and time, and Replay (POST .../replay: the same event, as a new delivery).
// While a delivery is pending the list is asked again every 2 s, so its outcome shows.

const POLL_MS = 2000;

function statusBadge(d: WebhookDelivery) {
  const cls = d.status === 'delivered' ? 'badge on' : d.status === 'failed' ? 'badge off' : 'badge kind';
  return (
    <span class={cls} data-testid="delivery-status">
      {d.status}
    </span>
  );
}

function attemptText(a: WebhookDelivery['attempt_log'][number]): string {
  const outcome =
    a.status === null
      ? (a.error ?? 'no answer')
      : a.error === null || a.error === `HTTP ${a.status}`
        ? `HTTP ${a.status}`
        : `HTTP ${a.status} (${a.error})`;
  return `#${a.attempt} ${outcome} · ${shortTime(a.at)} · ${ms(a.duration_ms)}`;
}

export function Deliveries({ hook, onClose }: { hook: Webhook; onClose: () => void }) {
  const deliveries = useApi<List<WebhookDelivery>>(`/webhooks/${hook.id}/deliveries`);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const rows = deliveries.data?.data ?? [];
  const pending = rows.some((d) => d.status === 'pending');
  const { reload, loading } = deliveries;
  useEffect(() => {
    if (!pending || loading) return;
    const t = setTimeout(reload, POLL_MS);
    return () => clearTimeout(t);
  }, [pending, loading, reload]);
  const replay = async (d: WebhookDelivery): Promise<void> => {
    setMessage(null);
    try {
      const r = await api<{ data: WebhookDelivery }>('POST', `/webhooks/${hook.id}/deliveries/${d.id}/replay`);
      setMessage({ ok: true, text: `Replayed ${d.type} (event ${d.event_id}) as delivery ${r.data.id}.` });
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    }
    reload();
  };
  return (
    <section class="card deliveries" aria-label={`Deliveries to ${hook.url}`}>
      <h2>
        Deliveries to <code class="wrap">{hook.url}</code>
      </h2>
      <p class="actions">
        <button type="button" onClick={reload}>
          Refresh
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </p>
      {message !== null && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <Loadable loading={loading && deliveries.data === undefined} error={deliveries.error} empty={rows.length === 0}>
        <Table
          label="Deliveries"
          rows={rows}
          rowKey={(d) => d.id}
          columns={[
            {
              key: 'event',
              label: 'Event',
              render: (d) => (
                <>
                  {d.type}
                  <br />
                  <span class="hint">{d.id}</span>
                </>
              ),
            },
            {
              key: 'status',
              label: 'Status',
              sort: (d) => d.status,
              render: (d) => (
                <>
                  {statusBadge(d)}
                  {d.next_attempt_at === null ? null : (
                    <>
                      <br />
                      <span class="hint">next try {shortTime(d.next_attempt_at)}</span>
                    </>
                  )}
                </>
              ),
            },
            {
              key: 'attempts',
              label: 'Attempts',
              render: (d) =>
                d.attempt_log.length === 0 ? (
                  <span class="hint">none yet</span>
                ) : (
                  <ul class="attempts">
                    {d.attempt_log.map((a) => (
                      <li>{attemptText(a)}</li>
                    ))}
                  </ul>
                ),
            },
            { key: 'created', label: 'Created', sort: (d) => d.created_at, render: (d) => shortTime(d.created_at) },
            {
              key: 'actions',
              label: 'Actions',
              render: (d) => (
                <button type="button" aria-label={`Replay ${d.type} ${d.id}`} onClick={() => void replay(d)}>
                  Replay
                </button>
              ),
            },
          ]}
        />
      </Loadable>
    </section>
  );
}
