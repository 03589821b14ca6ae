import { useState } from 'preact/hooks';
import { api, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { dayAgo, int, shortTime, spend, usd } from '../format.ts';
import { useAllPages, useApi } from '../use-api.ts';
import { EditLimit, errorText, LimitFields, limitBody, NewKey, RESET_LABEL } from './key-forms.tsx';
import { KeyUsage } from './key-usage.tsx';
import { StatusBadge } from './key-status.tsx';
import type { AccountKey, UsageRow } from '../api/types.ts';
import { RotatedKey, RotateKey, type Rotated } from './rotate-key.tsx';
import { accessText, EditAccess } from './key-access.tsx';
import { asyncHandler } from '../async-handler.ts';

/** The API's own word for a key (`status`): active, disabled (by the account), revoked (by the operator), expired. */
type Key = AccountKey;
type KeyUsageRow = UsageRow;

/** A USD number from the keys API (OpenRouter's shape), shown with 2 decimals; exact figures come from /usage. */
function dollars(n: number | null): string {
  return n === null ? 'none' : usd(n.toFixed(6));
}

/** "$5.00 per day, $3.20 left", "none". */
function limitText(k: Key): string {
  if (k.limit === null) return 'none';
  return `${dollars(k.limit)}${k.limit_reset === null ? '' : ` ${RESET_LABEL[k.limit_reset]}`}, ${dollars(k.limit_remaining)} left`;
}

export function Keys() {
  // One server page of 100 keys at a time (keyset cursor), as the keys API serves them.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const keys = useApi<{ data: Key[]; next_cursor?: string | null }>(`/keys${qs({ cursor })}`);
  // Spend and requests per key over UTC days: today, the last 7 and the last 30 (the daily rollups).
  // Every key's row (the usage API pages its groups; an account's keys are bounded: accounts.max_keys).
  const today = useAllPages<KeyUsageRow>(`/usage${qs({ group_by: 'key', from: dayAgo(0), limit: 200 })}`);
  const week = useAllPages<KeyUsageRow>(`/usage${qs({ group_by: 'key', from: dayAgo(6), limit: 200 })}`);
  const month = useAllPages<KeyUsageRow>(`/usage${qs({ group_by: 'key', limit: 200 })}`);
  const [created, setCreated] = useState<{ key: string; name: string } | null>(null);
  const [editing, setEditing] = useState<Key | null>(null);
  const [editingAccess, setEditingAccess] = useState<Key | null>(null);
  const [open, setOpen] = useState<Key | null>(null);
  const [rotating, setRotating] = useState<Key | null>(null);
  const [rotated, setRotated] = useState<Rotated | null>(null);
  const [error, setError] = useState('');
  const byKey = (u: typeof today) => new Map((u.data?.data ?? []).map((r) => [r.group ?? '', r]));
  const [d1, d7, d30] = [byKey(today), byKey(week), byKey(month)];
  const reload = (): void => {
    keys.reload();
    today.reload();
    week.reload();
    month.reload();
  };

  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    }
    reload();
  };

  return (
    <>
      <CreateKey
        onCreated={(k) => {
          setCreated(k);
          keys.reload();
        }}
      />
      {created !== null && <NewKey created={created} onDone={() => setCreated(null)} />}
      {editing !== null && (
        <EditLimit
          name={editing.name}
          limit={editing.limit}
          reset={editing.limit_reset}
          onClose={() => {
            setEditing(null);
            reload();
          }}
          save={(body) => api('PATCH', `/keys/${editing.hash}`, body)}
        />
      )}
      {rotating !== null && (
        <RotateKey
          hash={rotating.hash}
          name={rotating.name}
          onClose={() => setRotating(null)}
          onRotated={(r) => {
            setRotating(null);
            setRotated(r);
            reload();
          }}
        />
      )}
      {rotated !== null && <RotatedKey rotated={rotated} onDone={() => setRotated(null)} />}
      {editingAccess !== null && (
        <EditAccess
          name={editingAccess.name}
          access={editingAccess}
          onClose={() => {
            setEditingAccess(null);
            reload();
          }}
          save={(body) => api('PATCH', `/keys/${editingAccess.hash}`, body)}
        />
      )}
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Loadable loading={keys.loading} error={keys.error} empty={(keys.data?.data.length ?? 0) === 0}>
        <Table
          label="API keys"
          rows={keys.data?.data ?? []}
          rowKey={(k) => k.hash}
          columns={[
            {
              key: 'name',
              label: 'Name',
              sort: (k) => k.name,
              render: (k) => (
                <>
                  <button type="button" class="link" onClick={() => setOpen(k)} aria-label={`Usage of ${k.name}`}>
                    {k.name}
                  </button>
                  <br />
                  <code class="hint">{k.label}</code>
                </>
              ),
            },
            {
              key: 'status',
              label: 'Status',
              sort: (k) => k.status,
              render: (k) => (
                <>
                  <StatusBadge status={k.status} />
                  <br />
                  <span class="hint">{k.last_used === null ? 'never used' : `used ${shortTime(k.last_used)}`}</span>
                  {k.expires_at !== null && (
                    <>
                      <br />
                      <span class="hint">expires {shortTime(k.expires_at)}</span>
                    </>
                  )}
                </>
              ),
            },
            {
              key: 'spend',
              label: 'Spend: today · 7d · 30d',
              sort: (k) => d30.get(k.hash)?.cost ?? 0,
              numeric: true,
              render: (k) => (
                <span class="spend3">
                  <span data-testid="key-usage-1">{spend(d1.get(k.hash)?.cost_usd ?? '0')}</span>
                  <span data-testid="key-usage-7">{spend(d7.get(k.hash)?.cost_usd ?? '0')}</span>
                  <span data-testid="key-usage-30">{spend(d30.get(k.hash)?.cost_usd ?? '0')}</span>
                </span>
              ),
            },
            {
              key: 'requests',
              label: 'Requests, 30d',
              render: (k) => int(d30.get(k.hash)?.requests ?? 0),
              sort: (k) => d30.get(k.hash)?.requests ?? 0,
              numeric: true,
            },
            {
              key: 'limit',
              label: 'Limit · access',
              sort: (k) => k.limit ?? Infinity,
              render: (k) => (
                <>
                  <span data-testid="key-limit" class="limit">
                    {limitText(k)}
                  </span>{' '}
                  <button type="button" class="link" onClick={() => setEditing(k)} aria-label={`Edit the limit of ${k.name}`}>
                    edit
                  </button>
                  <br />
                  <span data-testid="key-access" class="hint">
                    {accessText(k)}
                  </span>{' '}
                  <button type="button" class="link" onClick={() => setEditingAccess(k)} aria-label={`Edit the access of ${k.name}`}>
                    edit
                  </button>
                </>
              ),
            },
            {
              key: 'actions',
              label: 'Actions',
              render: (k) => (
                <span class="actions">
                  <button
                    type="button"
                    onClick={asyncHandler(() => act(() => api('PATCH', `/keys/${k.hash}`, { disabled: !k.disabled })))}
                    aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${k.name}`}
                  >
                    {k.disabled ? 'Enable' : 'Disable'}
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      setRotated(null);
                      setRotating(k);
                    }}
                    aria-label={`Rotate ${k.name}`}
                  >
                    Rotate
                  </button>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete ${k.name}`}
                    onClick={() => {
                      if (confirm(`Delete the key "${k.name}"? Clients using it stop working.`))
                        void act(() => api('DELETE', `/keys/${k.hash}`));
                    }}
                  >
                    Delete
                  </button>
                </span>
              ),
            },
          ]}
        />
        <div class="pager">
          <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <button
            type="button"
            disabled={keys.data?.next_cursor == null}
            onClick={() => setCursors([...cursors, keys.data?.next_cursor ?? null])}
          >
            Next
          </button>
        </div>
      </Loadable>
      {open !== null && <KeyUsage path={`/keys/${open.hash}/usage`} name={open.name} onClose={() => setOpen(null)} />}
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: { key: string; name: string }) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState('');
  const [expires, setExpires] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      const body: Record<string, unknown> = { name, ...limitBody(limit, reset) };
      if (expires !== '') body.expires_at = new Date(`${expires}T23:59:59`).toISOString();
      const res = await api<{ key: string; data: Key }>('POST', '/keys', body);
      onCreated({ key: res.key, name: res.data.name });
      setName('');
      setLimit('');
      setReset('');
      setExpires('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Create a key">
      <div>
        <label for="key-name">Name</label>
        <input id="key-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <LimitFields id="key" limit={limit} reset={reset} onLimit={setLimit} onReset={setReset} />
      <div>
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" type="date" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">Create key</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
