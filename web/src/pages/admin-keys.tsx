import { useState } from 'preact/hooks';
import { api, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { shortTime, spend, time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';
import { EditLimit, errorText, LimitFields, limitBody, NewKey, RESET_LABEL } from './key-forms.tsx';
import { KeyUsage } from './key-usage.tsx';
import { StatusBadge } from './key-status.tsx';
import { accessText, EditAccess } from './key-access.tsx';
import type { AdminKey } from '../api/types.ts';
import { AccountName, useAccountNames } from '../account-names.tsx';
import { asyncHandler } from '../async-handler.ts';

type Key = AdminKey;

export function AdminKeys() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const keys = useApi<{ data: Key[]; next_cursor: string | null }>(`/admin/keys${qs({ limit: 100, cursor })}`);
  const [error, setError] = useState('');
  const [created, setCreated] = useState<{ key: string; name: string; kind: string } | null>(null);
  const [editing, setEditing] = useState<Key | null>(null);
  const [editingAccess, setEditingAccess] = useState<Key | null>(null);
  const [open, setOpen] = useState<Key | null>(null);
  const accountNames = useAccountNames(true);
  const toggle = async (k: Key): Promise<void> => {
    setError('');
    try {
      await api('PATCH', `/admin/keys/${k.hash}`, { disabled: !k.disabled });
    } catch (err) {
      setError(errorText(err));
    }
    keys.reload();
  };
  return (
    <>
      <CreateAccountKey
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
            keys.reload();
          }}
          save={(body) => api('PATCH', `/admin/keys/${editing.hash}`, body)}
        />
      )}
      {editingAccess !== null && (
        <EditAccess
          key={editingAccess.hash}
          name={editingAccess.name}
          access={editingAccess}
          onClose={() => {
            setEditingAccess(null);
            keys.reload();
          }}
          save={(body) => api('PATCH', `/admin/keys/${editingAccess.hash}`, body)}
        />
      )}
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Loadable loading={keys.loading} error={keys.error} empty={(keys.data?.data.length ?? 0) === 0}>
        <Table
          label="All keys"
          rows={keys.data?.data ?? []}
          pageSize={100}
          rowKey={(k) => k.hash}
          columns={[
            {
              key: 'name',
              label: 'Name',
              sort: (k) => k.name,
              render: (k) => (
                <button type="button" class="link" onClick={() => setOpen(k)} aria-label={`Usage of ${k.name}`}>
                  {k.name}
                </button>
              ),
            },
            { key: 'label', label: 'Key', render: (k) => <code>{k.label}</code> },
            {
              key: 'account',
              label: 'Account',
              render: (k) => <AccountName id={k.account_id} names={accountNames} />,
              sort: (k) => accountNames.get(k.account_id) ?? k.account_id,
            },
            {
              key: 'status',
              label: 'Status',
              render: (k) => (
                <>
                  <StatusBadge status={k.status} />
                  {k.expires_at !== null && (
                    <>
                      <br />
                      <span class="hint">expires {shortTime(k.expires_at)}</span>
                    </>
                  )}
                </>
              ),
              sort: (k) => k.status,
            },
            { key: 'kind', label: 'Kind', render: (k) => k.kind, sort: (k) => k.kind },
            { key: 'usage', label: 'Usage', render: (k) => spend(k.usage_usd), sort: (k) => Number(k.usage_usd), numeric: true },
            {
              key: 'limit',
              label: 'Limit',
              render: (k) => (
                <>
                  {k.limit_usd === null ? 'none' : `${usd(k.limit_usd)}${k.limit_reset === null ? '' : ` ${RESET_LABEL[k.limit_reset]}`}`}
                  {k.kind === 'api' && (
                    <>
                      <br />
                      <span data-testid="key-access" class="hint">
                        {accessText(k)}
                      </span>
                    </>
                  )}
                </>
              ),
            },
            { key: 'last', label: 'Last used', render: (k) => time(k.last_used), sort: (k) => k.last_used ?? '' },
            {
              key: 'actions',
              label: 'Actions',
              render: (k) => (
                <span class="actions">
                  {k.kind === 'api' && (
                    <button type="button" onClick={() => setEditing(k)} aria-label={`Edit the limit of ${k.name}`}>
                      Limit
                    </button>
                  )}
                  {k.kind === 'api' && (
                    <button type="button" onClick={() => setEditingAccess(k)} aria-label={`Edit the access of ${k.name}`}>
                      Access
                    </button>
                  )}
                  <button
                    type="button"
                    onClick={asyncHandler(() => toggle(k))}
                    aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${k.name}`}
                  >
                    {k.disabled ? 'Enable' : 'Disable'}
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
      {open !== null && <KeyUsage path={`/admin/keys/${open.hash}/usage`} name={open.name} onClose={() => setOpen(null)} />}
    </>
  );
}

/**
 * A key for any account, through the admin API (audited): an API key or a management key
 * (the key-management API cannot mint management keys; the operator can).
 */
function CreateAccountKey({ onCreated }: { onCreated: (k: { key: string; name: string; kind: string }) => void }) {
  const [account, setAccount] = useState('');
  const [name, setName] = useState('');
  const [kind, setKind] = useState('api');
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      const body: Record<string, unknown> = { name, kind, ...(kind === 'api' ? limitBody(limit, reset) : {}) };
      const res = await api<{ key: string; data: Key }>('POST', `/admin/accounts/${encodeURIComponent(account.trim())}/keys`, body);
      onCreated({ key: res.key, name: res.data.name, kind: res.data.kind });
      setName('');
      setLimit('');
      setReset('');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Create a key for an account">
      <div>
        <label for="ak-account">Account id</label>
        <input
          id="ak-account"
          required
          placeholder="acct_…"
          value={account}
          onInput={(e) => setAccount((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="ak-name">Name</label>
        <input id="ak-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="ak-kind">Kind</label>
        <select id="ak-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
          <option value="api">API key</option>
          <option value="management">Management key</option>
        </select>
      </div>
      <p class="hint" style="flex-basis: 100%; margin: 0">
        {kind === 'api'
          ? 'An API key calls models.'
          : "A management key signs in to the dashboard and manages the account's keys; it cannot call models."}
      </p>
      {kind === 'api' && <LimitFields id="ak" limit={limit} reset={reset} onLimit={setLimit} onReset={setReset} />}
      <button type="submit">Create key</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
