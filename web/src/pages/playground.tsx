import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, BASE } from '../api.ts';
import { Loadable } from '../components.tsx';
import { useApi } from '../use-api.ts';
import { asyncHandler } from '../async-handler.ts';

// The playground calls the gateway's own /v1/chat/completions like any client, so it is
// charged to the account like any request and shows in Activity. Model calls take an API
// key, never the session: the server makes the playground a key of its own
// (POST /dashboard/playground-key: marked as the playground's, expiring within minutes,
// with a small limit), which the page keeps in memory and replaces once it has expired.
// The page never lists, changes or deletes the account's keys.

export const PLAYGROUND_KEY = 'dashboard playground';

interface Message {
  role: 'user' | 'assistant';
  content: string;
}
interface PlaygroundKey {
  key: string;
  expiresAt: number;
  limit: string | null;
}

/** A new key of the playground's own (the server removes its expired ones). */
async function playgroundKey(): Promise<PlaygroundKey> {
  const made = await api<{ key: string; data: { expires_at: string; limit: string | null } }>('POST', '/dashboard/playground-key');
  return { key: made.key, expiresAt: Date.parse(made.data.expires_at), limit: made.data.limit };
}

/** The key in hand, or a new one when there is none or it expires within a minute. */
async function currentKey(held: { current: PlaygroundKey | null }): Promise<PlaygroundKey> {
  if (held.current === null || held.current.expiresAt - Date.now() < 60_000) held.current = await playgroundKey();
  return held.current;
}

export function Playground() {
  const models = useApi<{ data: { id: string; kind?: string }[] }>('/models');
  // The playground chats: models of other kinds (embeddings, images, audio) are not offered.
  const chatModels = (models.data?.data ?? []).filter((m) => (m.kind ?? 'chat') === 'chat');
  const [model, setModel] = useState('');
  const [temperature, setTemperature] = useState('1');
  const [maxTokens, setMaxTokens] = useState('256');
  const [input, setInput] = useState('');
  const [messages, setMessages] = useState<Message[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const key = useRef<PlaygroundKey | null>(null);
  useEffect(() => {
    if (model === '' && chatModels.length > 0) setModel(chatModels[0]!.id);
  }, [models.data]);

  const send = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (input.trim() === '') return;
    setError('');
    setBusy(true);
    const history: Message[] = [...messages, { role: 'user', content: input }];
    setMessages([...history, { role: 'assistant', content: '' }]);
    setInput('');
    try {
      const payload = JSON.stringify({
        model,
        messages: history,
        stream: true,
        temperature: Number(temperature),
        max_tokens: Number(maxTokens),
      });
      const call = async (k: PlaygroundKey) =>
        fetch(`${BASE}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${k.key}`, 'x-title': 'Switchyard playground' },
          body: payload,
        });
      let res = await call(await currentKey(key));
      // The key ended meanwhile (it expired, or the account deleted it): once more with a new one.
      if (res.status === 401) {
        key.current = null;
        res = await call(await currentKey(key));
      }
      if (!res.ok || res.body === null) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
      }
      let text = '';
      for await (const delta of sseDeltas(res.body)) {
        text += delta;
        setMessages([...history, { role: 'assistant', content: text }]);
      }
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Loadable loading={models.loading} error={models.error}>
      <form class="card filters" aria-label="Parameters" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="pg-model">Model</label>
          <select id="pg-model" value={model} onChange={(e) => setModel((e.target as HTMLSelectElement).value)}>
            {chatModels.map((m) => (
              <option value={m.id}>{m.id}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="pg-temp">Temperature</label>
          <input
            id="pg-temp"
            type="number"
            min="0"
            max="2"
            step="0.1"
            value={temperature}
            onInput={(e) => setTemperature((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="pg-max">Max tokens</label>
          <input
            id="pg-max"
            type="number"
            min="1"
            step="1"
            value={maxTokens}
            onInput={(e) => setMaxTokens((e.target as HTMLInputElement).value)}
          />
        </div>
        <button type="button" onClick={() => setMessages([])} disabled={busy}>
          Clear
        </button>
      </form>
      <ol class="chat" aria-label="Conversation" aria-live="polite">
        {messages.map((m) => (
          <li class={`msg ${m.role}`} data-testid={`msg-${m.role}`}>
            <strong>{m.role === 'user' ? 'You' : model}</strong>
            <p>{m.content}</p>
          </li>
        ))}
      </ol>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form class="card form-row" onSubmit={asyncHandler(send)} aria-label="Message">
        <div>
          <label for="pg-input">Message</label>
          <input id="pg-input" value={input} onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Streaming…' : 'Send'}
        </button>
      </form>
      <p class="hint">
        Requests are charged to the account and appear in Activity, made with the playground's own short-lived key “{PLAYGROUND_KEY}”
        {key.current?.limit == null ? '' : ` (at most $${key.current.limit})`}.
      </p>
    </Loadable>
  );
}

/** The text deltas of an OpenAI chat completion stream (server-sent events). */
async function* sseDeltas(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; error?: { message?: string } };
        if (chunk.error !== undefined) throw new Error(chunk.error.message ?? 'stream error');
        const delta = chunk.choices?.[0]?.delta?.content;
        if (delta) yield delta;
      }
    }
  }
}
