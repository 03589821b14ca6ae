import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { usd } from '../format.ts';
import { errorText, RESET_LABEL, type LimitReset } from './key-forms.tsx';
import { listOf } from './key-access.tsx';

import type { Account } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

// What an account may reach and spend, as the operator edits it (PATCH /admin/accounts/{id};
// docs/governance.md#allowlists, docs/budgets.md): its allowed models (ids and globs) and
// providers — every key's list only narrows them — and its budget, an amount per UTC day,
// week or month (or over its whole usage). Only what changed is sent; a budget keeps its
// alert thresholds.

const joined = (list: string[] | null): string => (list ?? []).join(', ');
const sameList = (a: string[] | null, b: string[] | null): boolean => JSON.stringify(a) === JSON.stringify(b);

/** "all models", or the list; "no budget", or "$100.00 per month". */
export function accountAccessText(a: Pick<Account, 'allowed_models' | 'allowed_providers' | 'budget'>): {
  models: string;
  providers: string;
  budget: string;
} {
  return {
    models: a.allowed_models === null ? 'all models' : a.allowed_models.length === 0 ? 'no models' : a.allowed_models.join(', '),
    providers: a.allowed_providers === null ? 'all providers' : a.allowed_providers.join(', ') || 'none',
    budget:
      a.budget === null ? 'no budget' : `${usd(a.budget.amount_usd)} ${a.budget.reset === null ? 'in all' : RESET_LABEL[a.budget.reset]}`,
  };
}

export function EditAccountAccess({ account, onSaved }: { account: Account; onSaved: () => void }) {
  const [models, setModels] = useState(joined(account.allowed_models));
  const [providers, setProviders] = useState(joined(account.allowed_providers));
  const [amount, setAmount] = useState(account.budget?.amount_usd ?? '');
  const [reset, setReset] = useState<string>(account.budget?.reset ?? '');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    setMessage(null);
    const body: Record<string, unknown> = {};
    const m = listOf(models);
    const p = listOf(providers);
    if (!sameList(m, account.allowed_models)) body.allowed_models = m;
    if (!sameList(p, account.allowed_providers)) body.allowed_providers = p;
    const a = amount.trim();
    const r = reset === '' ? null : (reset as LimitReset);
    if (a === '' && account.budget !== null) body.budget = null;
    else if (a !== '' && (account.budget === null || a !== account.budget.amount_usd || r !== account.budget.reset)) {
      body.budget = { amount: a, reset: r, alert_thresholds: account.budget?.alert_thresholds ?? null };
    }
    if (Object.keys(body).length === 0) {
      setMessage({ ok: true, text: 'Nothing changed.' });
      return;
    }
    try {
      await api('PATCH', `/admin/accounts/${account.id}`, body);
      setMessage({ ok: true, text: 'Saved.' });
      onSaved();
    } catch (err) {
      setMessage({ ok: false, text: errorText(err) });
    }
  };
  return (
    <form class="form-row" onSubmit={asyncHandler(save)} aria-label="Access and budget of the account">
      <div class="wide">
        <label for="acct-access-models">Allowed models (ids or globs; blank: all)</label>
        <input
          id="acct-access-models"
          placeholder="anthropic/*, openai/gpt-4.1"
          value={models}
          onInput={(e) => setModels((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="acct-access-providers">Allowed providers (blank: all)</label>
        <input id="acct-access-providers" value={providers} onInput={(e) => setProviders((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="acct-budget">Budget (USD; blank: none)</label>
        <input id="acct-budget" inputMode="decimal" value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="acct-budget-reset">Budget resets</label>
        <select
          id="acct-budget-reset"
          value={reset}
          disabled={amount.trim() === ''}
          onChange={(e) => setReset((e.target as HTMLSelectElement).value)}
        >
          <option value="">never (the whole usage)</option>
          <option value="daily">daily (00:00 UTC)</option>
          <option value="weekly">weekly (Monday, UTC)</option>
          <option value="monthly">monthly (the 1st, UTC)</option>
        </select>
      </div>
      <button type="submit">Save access and budget</button>
      {message === null ? null : (
        <p role={message.ok ? 'status' : 'alert'} class={message.ok ? 'ok' : 'error'}>
          {message.text}
        </p>
      )}
    </form>
  );
}
