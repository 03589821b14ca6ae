import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { Session } from '../app.tsx';
import { Loadable } from '../components.tsx';
import { usd } from '../format.ts';
import { useApi } from '../use-api.ts';
import { ByokSettings } from './byok-settings.tsx';
import { accountAccessText } from './admin-account-access.tsx';

import type { Account } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

/** The account's name and default model (picked from the catalog; the gateway validates it). */
export function Settings({ session }: { session: Session }) {
  const account = useApi<{ data: Account }>('/account');
  const models = useApi<{ data: { id: string }[] }>('/models');
  const [name, setName] = useState('');
  const [model, setModel] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    if (account.data !== undefined) {
      setName(account.data.data.name);
      setModel(account.data.data.default_model ?? '');
    }
  }, [account.data]);
  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    setMessage(null);
    try {
      await api('PATCH', '/account', { name, ...(model === '' ? {} : { default_model: model }) });
      setMessage({ ok: true, text: 'Saved.' });
      account.reload();
    } catch (err) {
      setMessage({ ok: false, text: err instanceof ApiError ? err.message : String(err) });
    }
  };
  return (
    <Loadable loading={account.loading || models.loading} error={account.error ?? models.error}>
      <form class="card settings" onSubmit={asyncHandler(save)} aria-label="Account settings">
        <div>
          <label for="acct-name">Account name</label>
          <input id="acct-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </div>
        <div>
          <label for="acct-model">Default model (used when a request names none)</label>
          <select id="acct-model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
            <option value="" disabled={account.data?.data.default_model != null}>
              none
            </option>
            {(models.data?.data ?? []).map((m) => (
              <option value={m.id}>{m.id}</option>
            ))}
          </select>
        </div>
        <button type="submit">Save</button>
        {message !== null && (
          <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        )}
      </form>
      <dl class="card facts">
        <dt>Account id</dt>
        <dd>
          <code>{session.account.id}</code>
        </dd>
        <dt>Tier</dt>
        <dd>{account.data?.data.tier}</dd>
        <dt>Balance</dt>
        <dd>{usd(account.data?.data.balance_usd)}</dd>
        {account.data === undefined ? null : <AccessFacts account={account.data.data} />}
        <dt>Signed in with</dt>
        <dd>
          <code>{session.key_label}</code> (management key)
        </dd>
      </dl>
      {session.byok_enabled === true ? (
        <ByokSettings />
      ) : (
        <p class="card hint">
          Bring-your-own-key is off on this gateway (its operator sets <code>byok.master_key</code>).
        </p>
      )}
    </Loadable>
  );
}

/** What the account may reach and spend: the operator sets these (a key's own list only narrows them). */
function AccessFacts({ account }: { account: Account }) {
  const t = accountAccessText(account);
  return (
    <>
      <dt>Allowed models</dt>
      <dd data-testid="account-allowed-models">
        {t.models} <span class="hint">(set by the operator; a key's own list only narrows it)</span>
      </dd>
      <dt>Allowed providers</dt>
      <dd>{t.providers}</dd>
      <dt>Budget</dt>
      <dd data-testid="account-budget">{t.budget}</dd>
    </>
  );
}
