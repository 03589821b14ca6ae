import { useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';
import { Ledger } from './credits.tsx';
import { AccountKeys, AccountMembers, EditAccount } from './admin-account-edit.tsx';
import { EditAccountAccess } from './admin-account-access.tsx';
import type { Account } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

export function AdminAccounts() {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const accounts = useApi<{ data: Account[] }>(`/admin/accounts${qs({ search: query, limit: 200 })}`);
  const [open, setOpen] = useState<Account | null>(null);
  return (
    <>
      <form
        class="card form-row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search);
        }}
      >
        <div>
          <label for="acct-search">Search accounts</label>
          <input id="acct-search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit">Search</button>
      </form>
      <CreateAccount onCreated={() => accounts.reload()} />
      <Loadable loading={accounts.loading} error={accounts.error} empty={(accounts.data?.data.length ?? 0) === 0}>
        <Table
          label="Accounts"
          rows={accounts.data?.data ?? []}
          rowKey={(a) => a.id}
          onRow={setOpen}
          columns={[
            { key: 'name', label: 'Name', render: (a) => a.name, sort: (a) => a.name },
            { key: 'id', label: 'Id', render: (a) => <code>{a.id}</code> },
            { key: 'tier', label: 'Tier', render: (a) => a.tier, sort: (a) => a.tier },
            { key: 'balance', label: 'Balance', render: (a) => usd(a.balance_usd), sort: (a) => Number(a.balance_usd), numeric: true },
            {
              key: 'active',
              label: 'Status',
              render: (a) => <span class={a.is_active ? 'badge on' : 'badge off'}>{a.is_active ? 'active' : 'inactive'}</span>,
            },
            { key: 'created', label: 'Created', render: (a) => time(a.created_at), sort: (a) => a.created_at },
          ]}
        />
      </Loadable>
      {open !== null && (
        <AccountDetail
          key={open.id}
          account={accounts.data?.data.find((a) => a.id === open.id) ?? open}
          onChanged={() => accounts.reload()}
          onClose={() => setOpen(null)}
        />
      )}
    </>
  );
}

function CreateAccount({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await api('POST', '/admin/accounts', { name, type: 'user' });
      setName('');
      onCreated();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Create an account">
      <div>
        <label for="acct-name">New account name</label>
        <input id="acct-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">Create account</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function AccountDetail({ account, onChanged, onClose }: { account: Account; onChanged: () => void; onClose: () => void }) {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const grant = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await api('POST', `/admin/accounts/${account.id}/credits`, {
        kind: amount.trim().startsWith('-') ? 'adjustment' : 'grant',
        amount: amount.trim(),
        reason,
      });
      setAmount('');
      setReason('');
      setTick(tick + 1);
      onChanged();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const setActive = async (active: boolean): Promise<void> => {
    try {
      await api('PATCH', `/admin/accounts/${account.id}`, { is_active: active });
      onChanged();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <section class="card" aria-label={`Account ${account.name}`}>
      <h2>
        {account.name} <code>{account.id}</code>
      </h2>
      <form class="form-row" onSubmit={asyncHandler(grant)} aria-label="Grant or adjust credits">
        <div>
          <label for="grant-amount">Credits (USD, negative to adjust down)</label>
          <input
            id="grant-amount"
            required
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="grant-reason">Reason</label>
          <input id="grant-reason" required value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit">Grant</button>
      </form>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p>
        <button type="button" onClick={asyncHandler(() => setActive(!account.is_active))}>
          {account.is_active ? 'Deactivate' : 'Reactivate'}
        </button>
        <button type="button" class="link" onClick={onClose}>
          Close
        </button>
      </p>
      <h3>Settings</h3>
      <EditAccount account={account} onSaved={onChanged} />
      <h3>Access and budget</h3>
      <EditAccountAccess account={account} onSaved={onChanged} />
      <h3>Keys</h3>
      <AccountKeys accountId={account.id} />
      <h3>Members</h3>
      <AccountMembers accountId={account.id} />
      <h3>Ledger</h3>
      <Ledger key={tick} path={`/admin/accounts/${account.id}/ledger`} />
    </section>
  );
}
