import { useEffect, useState } from 'preact/hooks';
import { API, api, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { cost, int, ms, shortTime, time } from '../format.ts';
import { GenerationDialog } from './generation.tsx';
import { kindOfSurface } from '../kinds.ts';
import { useApi } from '../use-api.ts';
import { AccountName, useAccountNames } from '../account-names.tsx';
import type { ActivityRecord, Refusal } from '../api/types.ts';

/** A generation as lists show it; `api_type` is the surface it came through: chat, messages, responses, embeddings, images, speech, transcriptions. */
export type Row = ActivityRecord;

interface Filters {
  key: string;
  model: string;
  provider: string;
  status: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { key: '', model: '', provider: '', status: '', from: '', to: '' };

/** Generation records, newest first, one server page (keyset cursor) at a time. */
export function Activity({ scope }: { scope: 'account' | 'admin' }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [state, setState] = useState<{ rows: Row[]; next: string | null; loading: boolean; error: string | undefined }>({
    rows: [],
    next: null,
    loading: true,
    error: undefined,
  });
  const [open, setOpen] = useState<Row | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;
  const path = scope === 'admin' ? '/admin/generations' : '/activity';
  // An account's keys by name (the filter's choices and the Key column); the operator filters by hash.
  const keys = useApi<{ data: { hash: string; name: string }[] }>(scope === 'account' ? '/keys' : null);
  const keyName = new Map((keys.data?.data ?? []).map((k) => [k.hash, k.name]));
  const accountNames = useAccountNames(scope === 'admin');

  // The filters as the API takes them: days in the browser's time zone, as instants.
  const filterQuery = {
    ...filters,
    from: filters.from === '' ? '' : new Date(`${filters.from}T00:00:00`).toISOString(),
    to: filters.to === '' ? '' : new Date(`${filters.to}T00:00:00`).toISOString(),
  };
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    const q = qs({ ...filterQuery, limit: 50, cursor });
    api<{ data: Row[]; next_cursor: string | null }>('GET', `${path}${q}`)
      .then((r) => {
        if (live) setState({ rows: r.data, next: r.next_cursor, loading: false, error: undefined });
      })
      .catch((err: Error) => {
        if (live) setState({ rows: [], next: null, loading: false, error: err.message });
      });
    return () => {
      live = false;
    };
  }, [filters, cursor, path]);

  const set = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  const apply = (e: Event): void => {
    e.preventDefault();
    setFilters(draft);
    setCursors([null]);
  };

  return (
    <>
      <form class="card filters" onSubmit={apply} aria-label="Filters">
        {scope === 'account' ? (
          <div>
            <label for="f-key">Key</label>
            <select id="f-key" value={draft.key} onChange={set('key')}>
              <option value="">any</option>
              {(keys.data?.data ?? []).map((k) => (
                <option value={k.hash}>{k.name}</option>
              ))}
            </select>
          </div>
        ) : (
          <div>
            <label for="f-key">Key hash</label>
            <input id="f-key" value={draft.key} onInput={set('key')} />
          </div>
        )}
        <div>
          <label for="f-model">Model</label>
          <input id="f-model" value={draft.model} onInput={set('model')} />
        </div>
        <div>
          <label for="f-provider">Provider</label>
          <input id="f-provider" value={draft.provider} onInput={set('provider')} />
        </div>
        <div>
          <label for="f-status">Status</label>
          <select id="f-status" value={draft.status} onChange={set('status')}>
            <option value="">any</option>
            <option value="success">success</option>
            <option value="error">error</option>
          </select>
        </div>
        <div>
          <label for="f-from">From</label>
          <input id="f-from" type="date" value={draft.from} onInput={set('from')} />
        </div>
        <div>
          <label for="f-to">Before</label>
          <input id="f-to" type="date" value={draft.to} onInput={set('to')} />
        </div>
        <button type="submit">Apply</button>
        {/* The whole filtered range, streamed by the server (not just this page); the session cookie authenticates the download. */}
        <a
          class="button"
          href={`${API}${path}.csv${qs(filterQuery)}`}
          download
          data-testid="export-csv"
          title="Every record matching the filters, newest first, up to 100,000 rows"
        >
          Export CSV
        </a>
      </form>
      <p class="hint">
        Export CSV downloads every record matching the applied filters (up to 100,000, newest first), not only this page. Requests refused
        before any model was called (rate limits, credits, unknown models) are not listed: they are counted per key, minute and reason
        {scope === 'admin' ? ' (below)' : ''}.
      </p>
      <Loadable loading={state.loading} error={state.error} empty={state.rows.length === 0}>
        <Table
          label="Generations"
          rows={state.rows}
          pageSize={50}
          rowKey={(r) => r.id}
          onRow={setOpen}
          columns={[
            {
              key: 'time',
              label: 'Time',
              render: (r) => (
                <span class="nowrap" title={time(r.created_at)}>
                  {shortTime(r.created_at)}
                </span>
              ),
              sort: (r) => r.created_at,
            },
            ...(scope === 'admin'
              ? [
                  {
                    key: 'account',
                    label: 'Account',
                    render: (r: Row) => <AccountName id={r.account_id} names={accountNames} />,
                    sort: (r: Row) => accountNames.get(r.account_id) ?? r.account_id,
                  },
                ]
              : []),
            // The key, and under it the app that sent the request (X-Title).
            {
              key: 'key',
              label: 'Key · app',
              render: (r) => (
                <>
                  {r.key_hash === null ? '—' : (keyName.get(r.key_hash) ?? <code title={r.key_hash}>{r.key_hash.slice(0, 8)}</code>)}
                  {r.app_title !== null && (
                    <>
                      <br />
                      <span class="hint can-wrap" data-testid="row-app">
                        {r.app_title}
                      </span>
                    </>
                  )}
                </>
              ),
            },
            // The model, under it its kind (the surface) and the provider that answered.
            {
              key: 'model',
              label: 'Model · kind · provider',
              render: (r) => (
                <>
                  {r.model ?? '—'}
                  <br />
                  <span class="badge kind" data-testid="row-kind" title={`POST ${r.api_type ?? ''}`}>
                    {kindOfSurface(r.api_type)}
                  </span>{' '}
                  <span class="hint">{r.provider_name ?? '—'}</span>
                </>
              ),
              sort: (r) => r.model ?? '',
            },
            // Tokens in / out; cache and reasoning under them when there are any.
            {
              key: 'tokens',
              label: 'Tokens in / out',
              render: (r) => (
                <>
                  {`${int(r.tokens_prompt)} / ${int(r.tokens_completion)}`}
                  {(r.native_tokens_cached > 0 || r.native_tokens_cache_write > 0) && (
                    <>
                      <br />
                      <span class="hint">
                        cache {int(r.native_tokens_cached)} / {int(r.native_tokens_cache_write)}
                      </span>
                    </>
                  )}
                  {r.native_tokens_reasoning > 0 && (
                    <>
                      <br />
                      <span class="hint">reasoning {int(r.native_tokens_reasoning)}</span>
                    </>
                  )}
                </>
              ),
              sort: (r) => r.tokens_prompt + r.tokens_completion,
              numeric: true,
            },
            {
              key: 'cost',
              label: 'Cost',
              render: (r) => (
                <>
                  <span data-testid="row-cost">{cost(r.total_cost_usd)}</span>
                  {r.byok === true && (
                    <>
                      <br />
                      <span class="hint" data-testid="row-byok" title="served with your own provider key: charged the BYOK fee">
                        BYOK
                      </span>
                    </>
                  )}
                </>
              ),
              sort: (r) => Number(r.total_cost_usd),
              numeric: true,
            },
            {
              key: 'latency',
              label: 'Latency',
              render: (r) => (
                <>
                  {ms(r.latency)}
                  {r.time_to_first_token !== null && (
                    <>
                      <br />
                      <span class="hint">TTFT {ms(r.time_to_first_token)}</span>
                    </>
                  )}
                </>
              ),
              sort: (r) => r.latency ?? 0,
              numeric: true,
            },
            {
              key: 'status',
              label: 'Status',
              render: (r) => (
                <>
                  <span class={r.status === 'success' ? 'badge on' : 'badge off'} data-testid="row-status">
                    {r.error_code ?? r.status}
                  </span>
                  {r.attempt_count > 1 && (
                    <>
                      <br />
                      <span class="hint">{r.attempt_count} attempts</span>
                    </>
                  )}
                </>
              ),
              sort: (r) => r.status,
            },
          ]}
        />
      </Loadable>
      <div class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={state.next === null} onClick={() => setCursors([...cursors, state.next])}>
          Older
        </button>
      </div>
      {open !== null && <GenerationDialog row={open} scope={scope} onClose={() => setOpen(null)} />}
      {scope === 'admin' && <RefusalCounts />}
    </>
  );
}

type RefusalRow = Refusal;

/** The latest refusal counts (GET /admin/refusals, first page): refused requests leave no generation record. */
function RefusalCounts() {
  const accountNames = useAccountNames(true);
  const counts = useApi<{ data: RefusalRow[] }>('/admin/refusals?limit=50');
  return (
    <section class="card" aria-label="Refused requests">
      <h2>Refused requests</h2>
      <Loadable loading={counts.loading} error={counts.error} empty={(counts.data?.data ?? []).length === 0}>
        <Table
          label="Refused requests"
          rows={counts.data?.data ?? []}
          pageSize={50}
          rowKey={(r) => `${r.minute} ${r.key_hash} ${r.reason}`}
          columns={[
            { key: 'minute', label: 'Minute', render: (r) => <span class="nowrap">{time(r.minute)}</span>, sort: (r) => r.minute },
            { key: 'account', label: 'Account', render: (r) => <AccountName id={r.account_id} names={accountNames} /> },
            { key: 'key', label: 'Key', render: (r) => <code title={r.key_hash}>{r.key_hash.slice(0, 8)}</code> },
            { key: 'reason', label: 'Reason', render: (r) => r.reason },
            { key: 'count', label: 'Count', render: (r) => int(r.count), sort: (r) => r.count, numeric: true },
          ]}
        />
      </Loadable>
    </section>
  );
}
