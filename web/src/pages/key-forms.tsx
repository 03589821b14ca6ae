import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { CopyButton } from '../components.tsx';
import { asyncHandler } from '../async-handler.ts';

// The key forms of the Keys pages: a key's credit limit with its optional reset period
// (daily, weekly from Monday, monthly from the 1st, all UTC), and the new-key notice that
// shows a key once with a copy button.

export type LimitReset = 'daily' | 'weekly' | 'monthly';
export const RESET_LABEL: Record<LimitReset, string> = { daily: 'per day', weekly: 'per week', monthly: 'per month' };

export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

/** The limit (USD text, '' for none) and its reset ('' for none): two labelled inputs. */
export function LimitFields({
  id,
  limit,
  reset,
  onLimit,
  onReset,
}: {
  id: string;
  limit: string;
  reset: string;
  onLimit: (v: string) => void;
  onReset: (v: string) => void;
}) {
  return (
    <>
      <div>
        <label for={`${id}-limit`}>Credit limit (USD, optional)</label>
        <input
          id={`${id}-limit`}
          type="number"
          min="0"
          step="0.01"
          value={limit}
          onInput={(e) => onLimit((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for={`${id}-reset`}>Limit resets</label>
        <select id={`${id}-reset`} value={reset} disabled={limit === ''} onChange={(e) => onReset((e.target as HTMLSelectElement).value)}>
          <option value="">never</option>
          <option value="daily">daily (00:00 UTC)</option>
          <option value="weekly">weekly (Monday, UTC)</option>
          <option value="monthly">monthly (the 1st, UTC)</option>
        </select>
      </div>
    </>
  );
}

/** The body fields of a limit: `limit` a USD decimal string or null, `limit_reset` a period or null. */
export function limitBody(limit: string, reset: string): { limit: string | null; limit_reset: string | null } {
  return { limit: limit === '' ? null : limit, limit_reset: limit === '' || reset === '' ? null : reset };
}

/** A new key, shown this once. */
export function NewKey({ created, onDone }: { created: { key: string; name: string; kind?: string }; onDone: () => void }) {
  return (
    <div class="notice" role="status" data-testid="new-key">
      <p>
        {created.kind === 'management' ? 'Management key' : 'Key'} <strong>{created.name}</strong> created. Copy it now: it is not shown
        again.
      </p>
      <code class="secret" data-testid="new-key-value">
        {created.key}
      </code>
      <CopyButton text={created.key} />
      <button type="button" class="link" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** Edits a key's limit and reset in place (PATCH through `save`). */
export function EditLimit({
  name,
  limit,
  reset,
  save,
  onClose,
}: {
  name: string;
  limit: number | null;
  reset: LimitReset | null;
  save: (body: Record<string, unknown>) => Promise<unknown>;
  onClose: () => void;
}) {
  const [l, setL] = useState(limit === null ? '' : String(limit));
  const [r, setR] = useState<string>(reset ?? '');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await save(limitBody(l, r));
      onClose();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label={`Limit of ${name}`}>
      <p class="hint" style="flex-basis: 100%; margin: 0">
        Limit of <strong>{name}</strong>
      </p>
      <LimitFields id="edit" limit={l} reset={r} onLimit={setL} onReset={setR} />
      <button type="submit">Save limit</button>
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
