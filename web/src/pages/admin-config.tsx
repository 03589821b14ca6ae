import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Loadable } from '../components.tsx';
import { time } from '../format.ts';
import { useApi } from '../use-api.ts';

import type { ConfigReload as Reload, RunningConfig as ConfigAnswer } from '../api/types.ts';

/**
 * The running configuration in the YAML's own names: the file as the operator wrote it
 * (`${VAR}` references unresolved, secrets masked by the gateway), with a Reload button that
 * does what SIGHUP does and the outcome of the last reload; everything as loaded, defaults
 * included (the gateway's internal names), is one click away.
 */
export function AdminConfig() {
  const config = useApi<ConfigAnswer>('/admin/config');
  const [reloading, setReloading] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const c = config.data;
  const reload = async (): Promise<void> => {
    setReloading(true);
    setOutcome(null);
    try {
      const r = (await api<{ data: Reload }>('POST', '/admin/config/reload')).data;
      setOutcome(
        r.ok
          ? { ok: true, text: `Reloaded: generation ${r.generation} in force, ${r.models ?? 0} models.` }
          : { ok: false, text: `Reload refused: ${r.error ?? 'unknown reason'}. Generation ${r.generation} stays in force.` },
      );
      config.reload();
    } catch (err) {
      setOutcome({ ok: false, text: (err as Error).message });
    } finally {
      setReloading(false);
    }
  };
  return (
    <Loadable loading={config.loading && c === undefined} error={config.error}>
      {c === undefined ? null : (
        <>
          <section class="card" aria-label="Configuration in force">
            <p>
              Generation <strong data-testid="config-generation">{c.generation}</strong> in force since {time(c.loaded_at)}
              {c.file === null ? (
                ', on the defaults (no configuration file).'
              ) : (
                <>
                  , from <code class="wrap">{c.file}</code>.
                </>
              )}
            </p>
            <p class="hint">
              Edit the file, then reload: providers, models, prices, tiers, moderation and timeouts change for new requests without a
              restart (requests in flight finish on the old ones). Listening address, database and Redis need a restart.
            </p>
            <button type="button" onClick={() => void reload()} disabled={reloading}>
              {reloading ? 'Reloading…' : 'Reload'}
            </button>
            {outcome === null ? null : (
              <p role="status" class={outcome.ok ? 'ok' : 'error'} data-testid="reload-outcome">
                {outcome.text}
              </p>
            )}
            {c.last_reload === null ? null : (
              <p data-testid="last-reload">
                Last reload {time(c.last_reload.at)}:{' '}
                {c.last_reload.ok ? `accepted (generation ${c.last_reload.generation})` : `refused — ${c.last_reload.error ?? ''}`}.
              </p>
            )}
          </section>
          <section class="card" aria-label="Configuration file">
            <h2>The file, in its own names</h2>
            {c.yaml === null ? (
              <p class="empty">No configuration file: every setting is at its default (docs/configuration.md lists them).</p>
            ) : (
              <pre class="yaml" data-testid="config-yaml">
                {c.yaml}
              </pre>
            )}
          </section>
          <details class="card">
            <summary>Everything as loaded, defaults included (internal names)</summary>
            <pre class="json">{JSON.stringify(c.data, null, 2)}</pre>
          </details>
        </>
      )}
    </Loadable>
  );
}
