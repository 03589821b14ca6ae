import { useEffect, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { Loadable } from '../components.tsx';
import { cost, int, ms, time } from '../format.ts';
import { useApi } from '../use-api.ts';
import type { Row } from './activity.tsx';
import type { Generation } from '../api/types.ts';

/** What GET /generation and GET /admin/generations/:id answer. */
type Detail = Generation;

/** The cost breakdown's items, in the order a bill reads. */
const COST_ITEMS: Array<[string, string]> = [
  ['prompt', 'Prompt tokens'],
  ['completion', 'Completion tokens'],
  ['cache_read', 'Cached prompt tokens read'],
  ['cache_write', 'Prompt tokens written to the cache'],
  ['request', 'Per request'],
  ['image', 'Images'],
];

/**
 * One generation record as OpenRouter's generation page shows one: what was asked and who
 * answered, the tokens, the cost item by item, the provider attempts with their outcomes,
 * and the timings; the raw record stays one click away.
 */
export function GenerationDialog({ row, scope, onClose }: { row: Row; scope: 'account' | 'admin'; onClose: () => void }) {
  const path = scope === 'admin' ? `/admin/generations/${encodeURIComponent(row.id)}` : `/generation?id=${encodeURIComponent(row.id)}`;
  const rec = useApi<{ data: Detail }>(path);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const d = rec.data?.data;
  return (
    <dialog ref={ref} class="record" onClose={onClose} aria-label={`Generation ${row.id}`}>
      <h2>
        Generation <code>{row.id}</code>
      </h2>
      <p>
        {time(row.created_at)} · {row.model ?? '—'} · {cost(row.total_cost_usd)}
      </p>
      <Loadable loading={rec.loading} error={rec.error}>
        {d === undefined ? null : <GenerationBody d={d} totalUsd={row.total_cost_usd} />}
      </Loadable>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  );
}

function GenerationBody({ d, totalUsd }: { d: Detail; totalUsd: string }) {
  const attempts = d.attempts ?? [];
  const flags = [
    d.streamed ? 'streamed' : 'not streamed',
    d.cancelled === true ? 'cancelled by the client' : null,
    d.cache_hit === true ? 'answered from the response cache' : null,
  ].filter((f): f is string => f !== null);
  return (
    <>
      <Facts
        label="Request"
        rows={[
          [
            'Status',
            <span class={`badge ${d.status === 'success' ? 'on' : 'off'}`} data-testid="generation-status">
              {d.status}
              {d.error_code === null ? '' : ` · ${d.error_code}`}
            </span>,
          ],
          ['Model', <code>{d.model ?? '—'}</code>],
          [
            'Provider',
            <>
              {d.provider_name ?? '—'}
              {d.upstream_model != null && d.upstream_model !== d.model ? (
                <>
                  {' '}
                  as <code>{d.upstream_model}</code>
                </>
              ) : null}
            </>,
          ],
          ['API', d.api_type ?? '—'],
          ['How', flags.join(', ')],
          [
            'Finish reason',
            d.finish_reason == null
              ? '—'
              : `${d.finish_reason}${d.native_finish_reason != null && d.native_finish_reason !== d.finish_reason ? ` (provider: ${d.native_finish_reason})` : ''}`,
          ],
          ...(d.app_title === null ? [] : [['App', d.app_title] as [string, ComponentChildren]]),
          ...(d.user == null ? [] : [['End user', <code>{d.user}</code>] as [string, ComponentChildren]]),
          ...(d.upstream_id == null ? [] : [['Provider’s id', <code class="wrap">{d.upstream_id}</code>] as [string, ComponentChildren]]),
        ]}
      />
      <Facts
        label="Tokens"
        rows={[
          ['Prompt', int(d.tokens_prompt)],
          ['Completion', int(d.tokens_completion)],
          ['Reasoning (of the completion)', int(d.native_tokens_reasoning)],
          ['Cached (read)', int(d.native_tokens_cached)],
          ['Written to the cache', int(d.native_tokens_cache_write)],
        ]}
      />
      <Facts
        label="Cost"
        rows={[
          ...COST_ITEMS.filter(([k]) => isCharged(d.cost_breakdown?.[k])).map(
            ([k, name]) => [name, cost(d.cost_breakdown![k])] as [string, ComponentChildren],
          ),
          ...Object.entries(d.cost_breakdown ?? {})
            .filter(([k, v]) => !COST_ITEMS.some(([c]) => c === k) && isCharged(v))
            .map(([k, v]) => [k.replace(/_/g, ' '), cost(v)] as [string, ComponentChildren]),
          ['Total', <strong data-testid="generation-total">{cost(totalUsd)}</strong>],
        ]}
      />
      <Facts
        label="Timings"
        rows={[
          ['Time to first token', ms(d.time_to_first_token)],
          ['Total', ms(d.latency)],
          ...(d.latency !== null && d.time_to_first_token !== null
            ? [['Generating after the first token', ms(d.latency - d.time_to_first_token)] as [string, ComponentChildren]]
            : []),
        ]}
      />
      <Guardrails hits={d.guardrails ?? []} />
      <section aria-label="Provider attempts">
        <h3>Provider attempts</h3>
        {attempts.length === 0 ? (
          <p class="empty">No upstream call (refused or answered by the gateway).</p>
        ) : (
          <ol class="attempts">
            {attempts.map((a) => (
              <li data-testid="attempt">
                <span class={`badge ${a.status >= 200 && a.status < 300 ? 'on' : 'off'}`}>
                  {a.status === 0 ? 'no answer' : `HTTP ${a.status}`}
                </span>{' '}
                <code>{a.model}</code> on {a.provider}
                {a.credential === undefined ? '' : ` (credential ${a.credential})`}
                {a.errorCode === null ? '' : ` · ${a.errorCode}`} · {ms(a.ms)}
              </li>
            ))}
          </ol>
        )}
      </section>
      <details>
        <summary>The whole record (JSON)</summary>
        <pre class="json">{JSON.stringify(d, null, 2)}</pre>
      </details>
    </>
  );
}

/** The account's guardrail rules that fired on the request (docs/governance.md#guardrails): never the text they matched. */
function Guardrails({ hits }: { hits: NonNullable<Detail['guardrails']> }) {
  if (hits.length === 0) return null;
  return (
    <section aria-label="Guardrails">
      <h3>Guardrails</h3>
      <ul class="guardrails">
        {hits.map((h) => (
          <li data-testid="guardrail-hit">
            <span class={`badge ${h.action === 'redact' ? 'on' : 'off'}`}>{h.action === 'redact' ? 'redacted' : 'blocked'}</span>{' '}
            <strong>{h.name}</strong> ({h.detector})
          </li>
        ))}
      </ul>
    </section>
  );
}

function isCharged(text: string | undefined): boolean {
  return text !== undefined && !/^0*(\.0*)?$/.test(text);
}

function Facts({ label, rows }: { label: string; rows: Array<[string, ComponentChildren]> }) {
  return (
    <section aria-label={label}>
      <h3>{label}</h3>
      <dl class="facts">
        {rows.map(([name, value]) => (
          <>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </>
        ))}
      </dl>
    </section>
  );
}
