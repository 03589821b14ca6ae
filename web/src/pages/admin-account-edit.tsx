import { useState } from 'preact/hooks';
import { api, ApiError, qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time, usd } from '../format.ts';
import { useApi } from '../use-api.ts';

import type { Account, AdminKey, Member } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

interface Tier {
  id: string;
  name: string;
}

/** A limit field's text → the API's value: blank is "the tier's" (absent), a whole number ≥ 1 otherwise. */
function limitOf(text: string): number | undefined {
  const t = text.trim();
  return t === '' ? undefined : Number(t);
}

/**
 * An account's settings as the operator edits them (PATCH /admin/accounts/{id}): name, tier,
 * default model, rate-limit overrides (blank: the tier's) and record retention (blank: the
 * tier's or the gateway's). The API validates; its message is shown as it comes.
 */
export function EditAccount({ account, onSaved }: { account: Account; onSaved: () => void }) {
  const tiers = useApi<{ data: { tiers: Tier[] } }>('/admin/config');
  const models = useApi<{ data: { id: string }[] }>('/models');
  const o = account.limits_override ?? {};
  const [name, setName] = useState(account.name);
  const [tier, setTier] = useState(account.tier);
  const [model, setModel] = useState(account.default_model ?? '');
  const [rpm, setRpm] = useState(o.requests_per_minute === undefined ? '' : String(o.requests_per_minute));
  const [rpd, setRpd] = useState(o.requests_per_day == null ? '' : String(o.requests_per_day));
  const [arpm, setArpm] = useState(o.account_requests_per_minute == null ? '' : String(o.account_requests_per_minute));
  const [retention, setRetention] = useState(account.retention_days === null ? '' : String(account.retention_days));
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    setMessage(null);
    const limits = { requests_per_minute: limitOf(rpm), requests_per_day: limitOf(rpd), account_requests_per_minute: limitOf(arpm) };
    const anyLimit = Object.values(limits).some((v) => v !== undefined);
    try {
      await api('PATCH', `/admin/accounts/${account.id}`, {
        name: name.trim(),
        tier,
        ...(model === '' ? {} : { default_model: model }),
        limits: anyLimit ? (JSON.parse(JSON.stringify(limits)) as Record<string, number>) : null,
        retention_days: limitOf(retention) ?? null,
      });
      setMessage({ ok: true, text: 'Saved.' });
      onSaved();
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
    }
  };
  const field = (id: string, label: string, value: string, set: (v: string) => void, hint?: string) => (
    <div>
      <label for={id}>{label}</label>
      <input id={id} value={value} inputMode="numeric" placeholder={hint} onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </div>
  );
  return (
    <form class="form-row" onSubmit={asyncHandler(save)} aria-label="Edit the account">
      <div>
        <label for="acct-edit-name">Name</label>
        <input id="acct-edit-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="acct-edit-tier">Tier</label>
        <select id="acct-edit-tier" value={tier} onChange={(e) => setTier((e.target as HTMLSelectElement).value)}>
          {(tiers.data?.data.tiers ?? [{ id: account.tier, name: account.tier }]).map((t) => (
            <option value={t.id}>
              {t.name} ({t.id})
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="acct-edit-model">Default model</label>
        <select id="acct-edit-model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
          <option value="">{account.default_model === null ? '— none —' : account.default_model}</option>
          {(models.data?.data ?? [])
            .filter((m) => m.id !== account.default_model)
            .map((m) => (
              <option value={m.id}>{m.id}</option>
            ))}
        </select>
      </div>
      {field('acct-edit-rpm', 'Requests per minute, per key', rpm, setRpm, "the tier's")}
      {field('acct-edit-rpd', 'Requests per day, per key', rpd, setRpd, "the tier's")}
      {field('acct-edit-arpm', 'Requests per minute, whole account', arpm, setArpm, "the tier's")}
      {field('acct-edit-retention', 'Keep records (days)', retention, setRetention, 'the default')}
      <button type="submit">Save account</button>
      {message === null ? null : (
        <p role={message.ok ? 'status' : 'alert'} class={message.ok ? 'ok' : 'error'}>
          {message.text}
        </p>
      )}
    </form>
  );
}

type KeyRow = AdminKey;

/** The account's keys (GET /admin/keys?account=), with the API's status. */
export function AccountKeys({ accountId }: { accountId: string }) {
  const keys = useApi<{ data: KeyRow[] }>(`/admin/keys${qs({ account: accountId, limit: 200 })}`);
  return (
    <Loadable loading={keys.loading} error={keys.error} empty={(keys.data?.data.length ?? 0) === 0}>
      <Table
        label="Keys of the account"
        rows={keys.data?.data ?? []}
        rowKey={(k) => k.hash}
        columns={[
          { key: 'name', label: 'Name', render: (k) => k.name, sort: (k) => k.name },
          { key: 'kind', label: 'Kind', render: (k) => k.kind },
          {
            key: 'status',
            label: 'Status',
            render: (k) => <span class={k.status === 'active' ? 'badge on' : 'badge off'}>{k.status}</span>,
            sort: (k) => k.status,
          },
          { key: 'usage', label: 'Used', render: (k) => usd(k.usage_usd), numeric: true },
          { key: 'limit', label: 'Limit', render: (k) => (k.limit_usd === null ? 'none' : usd(k.limit_usd)), numeric: true },
          { key: 'created', label: 'Created', render: (k) => time(k.created_at), sort: (k) => k.created_at },
        ]}
      />
    </Loadable>
  );
}

/** The account's members and their roles (GET /admin/accounts/{id}/members; docs/governance.md). */
export function AccountMembers({ accountId }: { accountId: string }) {
  const members = useApi<{ data: Member[] }>(`/admin/accounts/${accountId}/members`);
  return (
    <Loadable loading={members.loading} error={members.error} empty={(members.data?.data.length ?? 0) === 0}>
      <Table
        label="Members of the account"
        rows={members.data?.data ?? []}
        rowKey={(m) => m.id}
        columns={[
          { key: 'name', label: 'Name', render: (m) => m.name, sort: (m) => m.name },
          { key: 'email', label: 'Email', render: (m) => <code class="wrap">{m.email}</code>, sort: (m) => m.email },
          { key: 'role', label: 'Role', render: (m) => m.role, sort: (m) => m.role },
          { key: 'created', label: 'Added', render: (m) => time(m.created_at), sort: (m) => m.created_at },
        ]}
      />
    </Loadable>
  );
}
