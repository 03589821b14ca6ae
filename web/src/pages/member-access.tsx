import { useState } from 'preact/hooks';
import { usd } from '../format.ts';
import { errorText } from './key-forms.tsx';
import { listOf } from './key-access.tsx';

import type { Member } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

// A member's allowed models (ids and globs; null: the account's) and budget {amount, reset}
// (docs/governance.md#members-and-roles): shown in the Members table, edited in place
// (PATCH /members/{id}). The account's and the key's lists apply with the member's.

type BudgetReset = NonNullable<Member['budget']>['reset'];
const RESET_TEXT: Record<BudgetReset, string> = { daily: 'per day', weekly: 'per week', monthly: 'per month', none: 'in all' };

/** "all models · no budget", or "anthropic/* · $20.00 per month". */
export function memberAccessText(m: Member): string {
  const models =
    m.allowed_models === null ? "the account's models" : m.allowed_models.length === 0 ? 'no models' : m.allowed_models.join(', ');
  const budget = m.budget === null ? 'no budget' : `budget ${usd(m.budget.amount_usd)} ${RESET_TEXT[m.budget.reset]}`;
  return `${models} · ${budget}`;
}

export function EditMemberAccess({
  member,
  save,
  onClose,
}: {
  member: Member;
  save: (body: Record<string, unknown>) => Promise<unknown>;
  onClose: () => void;
}) {
  const [models, setModels] = useState((member.allowed_models ?? []).join(', '));
  const [amount, setAmount] = useState(member.budget?.amount_usd ?? '');
  const [reset, setReset] = useState<BudgetReset>(member.budget?.reset ?? 'monthly');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await save({ allowed_models: listOf(models), budget: amount.trim() === '' ? null : { amount: amount.trim(), reset } });
      onClose();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label={`Access of ${member.email}`}>
      <p class="hint" style="flex-basis: 100%; margin: 0">
        What <strong>{member.email}</strong>'s keys may reach and spend (blank: the account's models, no budget of their own)
      </p>
      <div class="wide">
        <label for="member-access-models">Allowed models (ids or globs, comma-separated)</label>
        <input
          id="member-access-models"
          placeholder="anthropic/*, openai/gpt-4.1"
          value={models}
          onInput={(e) => setModels((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="member-budget">Budget (USD)</label>
        <input id="member-budget" inputMode="decimal" value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="member-budget-reset">Budget resets</label>
        <select
          id="member-budget-reset"
          value={reset}
          disabled={amount.trim() === ''}
          onChange={(e) => setReset((e.target as HTMLSelectElement).value as BudgetReset)}
        >
          <option value="daily">daily</option>
          <option value="weekly">weekly</option>
          <option value="monthly">monthly</option>
          <option value="none">never (the whole usage)</option>
        </select>
      </div>
      <button type="submit">Save access</button>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
