import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyButton } from '../components.tsx';
import { shortTime } from '../format.ts';
import { errorText } from './key-forms.tsx';
import { asyncHandler } from '../async-handler.ts';

// Key rotation on the Keys page: a new secret for the same key (its name, limit and usage
// stay), the old one working for a chosen overlap; the new key is shown once.

/** The overlaps offered (seconds): the API takes any number from 0 to 7 days. */
const OVERLAPS: Array<[number, string]> = [
  [0, 'none: the old key stops now'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
];

export interface Rotated {
  key: string;
  name: string;
  previousUntil: string | null;
}

/** The form: choose the overlap, rotate (POST /keys/{hash}/rotate). */
export function RotateKey({
  hash,
  name,
  onRotated,
  onClose,
}: {
  hash: string;
  name: string;
  onRotated: (r: Rotated) => void;
  onClose: () => void;
}) {
  const [overlap, setOverlap] = useState(0);
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      const res = await api<{ key: string; previous_key_expires_at: string | null }>('POST', `/keys/${hash}/rotate`, {
        overlap_seconds: overlap,
      });
      onRotated({ key: res.key, name, previousUntil: res.previous_key_expires_at });
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label={`Rotate ${name}`}>
      <p class="hint" style="flex-basis: 100%; margin: 0">
        A new key for <strong>{name}</strong>: the same limit, usage and records.
      </p>
      <div>
        <label for="rotate-overlap">The old key keeps working</label>
        <select id="rotate-overlap" value={String(overlap)} onChange={(e) => setOverlap(Number((e.target as HTMLSelectElement).value))}>
          {OVERLAPS.map(([seconds, label]) => (
            <option key={seconds} value={String(seconds)}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Rotate key</button>
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

/** The rotated key, shown this once, and until when the old one works. */
export function RotatedKey({ rotated, onDone }: { rotated: Rotated; onDone: () => void }) {
  return (
    <div class="notice" role="status" data-testid="rotated-key">
      <p>
        Key <strong>{rotated.name}</strong> rotated. Copy the new key now: it is not shown again.{' '}
        {rotated.previousUntil === null ? 'The old key no longer works.' : `The old key works until ${shortTime(rotated.previousUntil)}.`}
      </p>
      <code class="secret" data-testid="rotated-key-value">
        {rotated.key}
      </code>
      <CopyButton text={rotated.key} />
      <button type="button" class="link" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
