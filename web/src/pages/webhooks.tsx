import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyButton, Loadable, Table } from '../components.tsx';
import { shortTime } from '../format.ts';
import { useApi } from '../use-api.ts';
import { errorText } from './key-forms.tsx';
import { Deliveries } from './webhook-deliveries.tsx';

import type { List, Webhook, WebhookCreated, WebhookEvent } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

// The account's webhooks (docs/webhooks.md): register an endpoint (its signing secret is
// shown once), list and remove them, and open one's deliveries — each attempt's status and
// time, and a Replay button.

/** Every event a webhook may take, with what it means (a Record: a new event fails the type check until named here). */
const EVENTS: Record<WebhookEvent, string> = {
  'key.created': 'a key is created',
  'key.revoked': 'a key is disabled or deleted',
  'key.rotated': 'a key gets a new secret',
  'key.limit_reached': "a key's limit is used up",
  'balance.low': 'the balance runs low',
  'budget.threshold': 'a budget or limit reaches a threshold',
  'member.added': 'a member is added',
  'member.removed': 'a member is removed',
  'byok.key_failed': "a provider refuses the account's own key",
};

export function Webhooks() {
  const hooks = useApi<List<Webhook>>('/webhooks');
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const [open, setOpen] = useState<Webhook | null>(null);
  const [error, setError] = useState('');
  const remove = async (w: Webhook): Promise<void> => {
    if (!confirm(`Remove the webhook to ${w.url}? Its delivery log goes with it.`)) return;
    setError('');
    try {
      await api('DELETE', `/webhooks/${w.id}`);
      if (open?.id === w.id) setOpen(null);
    } catch (err) {
      setError(errorText(err));
    }
    hooks.reload();
  };
  return (
    <>
      <p class="hint">
        Each event is a signed JSON <code>POST</code> (header <code>X-Switchyard-Signature</code>), retried with backoff; see
        docs/webhooks.md to check the signature.
      </p>
      <AddWebhook
        onCreated={(c) => {
          setCreated(c);
          hooks.reload();
        }}
      />
      {created !== null && <SecretNotice created={created} onDone={() => setCreated(null)} />}
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Loadable loading={hooks.loading && hooks.data === undefined} error={hooks.error} empty={(hooks.data?.data.length ?? 0) === 0}>
        <Table
          label="Webhooks"
          rows={hooks.data?.data ?? []}
          rowKey={(w) => w.id}
          columns={[
            { key: 'url', label: 'URL', sort: (w) => w.url, render: (w) => <code class="wrap">{w.url}</code> },
            { key: 'events', label: 'Events', render: (w) => <span class="wrap-list">{w.events.join(', ')}</span> },
            { key: 'created', label: 'Added', sort: (w) => w.created_at, render: (w) => shortTime(w.created_at) },
            {
              key: 'actions',
              label: 'Actions',
              render: (w) => (
                <span class="actions">
                  <button type="button" aria-label={`Deliveries to ${w.url}`} aria-pressed={open?.id === w.id} onClick={() => setOpen(w)}>
                    Deliveries
                  </button>
                  <button type="button" class="danger" aria-label={`Remove the webhook to ${w.url}`} onClick={() => void remove(w)}>
                    Remove
                  </button>
                </span>
              ),
            },
          ]}
        />
      </Loadable>
      {open !== null && <Deliveries key={open.id} hook={open} onClose={() => setOpen(null)} />}
    </>
  );
}

function AddWebhook({ onCreated }: { onCreated: (c: WebhookCreated) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['key.created', 'key.revoked']);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const toggle = (e: WebhookEvent, on: boolean): void => setEvents((list) => (on ? [...list, e] : list.filter((x) => x !== e)));
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    if (events.length === 0) {
      setError('Pick at least one event.');
      return;
    }
    try {
      const made = await api<WebhookCreated>('POST', '/webhooks', { url: url.trim(), events, ...(secret === '' ? {} : { secret }) });
      setUrl('');
      setSecret('');
      onCreated(made);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Add a webhook">
      <div>
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          placeholder="https://hooks.example.com/switchyard"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="webhook-secret">Signing secret (optional)</label>
        <input
          id="webhook-secret"
          type="password"
          autoComplete="off"
          placeholder="16+ characters; blank: one is made"
          minLength={16}
          maxLength={256}
          value={secret}
          onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
        />
      </div>
      <fieldset class="events">
        <legend>Events</legend>
        {(Object.keys(EVENTS) as WebhookEvent[]).map((ev) => (
          <label title={EVENTS[ev]}>
            <input type="checkbox" checked={events.includes(ev)} onChange={(e) => toggle(ev, (e.target as HTMLInputElement).checked)} />{' '}
            {ev}
          </label>
        ))}
      </fieldset>
      <button type="submit">Add webhook</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The new webhook's signing secret, shown this once with a copy button. */
function SecretNotice({ created, onDone }: { created: WebhookCreated; onDone: () => void }) {
  return (
    <div class="notice" role="status" data-testid="webhook-secret">
      <p>
        Webhook to <strong>{created.data.url}</strong> added. Its signing secret, to check each delivery's signature — copy it now: it is
        not shown again.
      </p>
      <code class="secret" data-testid="webhook-secret-value">
        {created.secret}
      </code>
      <CopyButton text={created.secret} />
      <button type="button" class="link" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
