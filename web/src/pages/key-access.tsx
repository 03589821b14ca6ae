import { useState } from 'preact/hooks';
import { errorText } from './key-forms.tsx';
import { asyncHandler } from '../async-handler.ts';

// What a key may reach (docs/governance.md#allowlists) and its cap on concurrent requests:
// shown in the Keys table, edited in place. The account's own allowlist (the operator's)
// applies on top: a key's list only narrows it.

export interface KeyAccess {
  allowed_models: string[] | null;
  allowed_providers: string[] | null;
  max_price: { prompt?: string; completion?: string } | null;
  max_in_flight: number | null;
}

/** "all models", or "anthropic/* · providers: bedrock · ≤ $3/M prompt · 4 at once". */
export function accessText(k: KeyAccess): string {
  const parts: string[] = [
    k.allowed_models === null ? 'all models' : k.allowed_models.length === 0 ? 'no models' : k.allowed_models.join(', '),
  ];
  if (k.allowed_providers !== null) parts.push(`providers: ${k.allowed_providers.join(', ') || 'none'}`);
  if (k.max_price?.prompt !== undefined) parts.push(`≤ $${k.max_price.prompt}/M prompt`);
  if (k.max_price?.completion !== undefined) parts.push(`≤ $${k.max_price.completion}/M completion`);
  if (k.max_in_flight !== null) parts.push(`${k.max_in_flight} at once`);
  return parts.join(' · ');
}

/** Comma-separated text → a list, or null (no list) when empty. */
export function listOf(text: string): string[] | null {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items.length === 0 ? null : items;
}

/** Edits a key's allowed models and providers and its max in flight (PATCH through `save`). */
export function EditAccess({
  name,
  access,
  save,
  onClose,
}: {
  name: string;
  access: KeyAccess;
  save: (body: Record<string, unknown>) => Promise<unknown>;
  onClose: () => void;
}) {
  const [models, setModels] = useState((access.allowed_models ?? []).join(', '));
  const [providers, setProviders] = useState((access.allowed_providers ?? []).join(', '));
  const [inFlight, setInFlight] = useState(access.max_in_flight === null ? '' : String(access.max_in_flight));
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await save({
        allowed_models: listOf(models),
        allowed_providers: listOf(providers),
        max_in_flight: inFlight === '' ? null : Number(inFlight),
      });
      onClose();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label={`Access of ${name}`}>
      <p class="hint" style="flex-basis: 100%; margin: 0">
        What <strong>{name}</strong> may reach (empty: no list of its own; the account's applies)
      </p>
      <div>
        <label for="access-models">Allowed models (ids or globs, comma-separated)</label>
        <input
          id="access-models"
          placeholder="anthropic/*, openai/gpt-4.1"
          value={models}
          onInput={(e) => setModels((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="access-providers">Allowed providers (comma-separated)</label>
        <input id="access-providers" value={providers} onInput={(e) => setProviders((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="access-in-flight">Max requests at once</label>
        <input
          id="access-in-flight"
          type="number"
          min="1"
          step="1"
          value={inFlight}
          onInput={(e) => setInFlight((e.target as HTMLInputElement).value)}
        />
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
