import { Loadable } from '../components.tsx';
import { useApi } from '../use-api.ts';

/** The running configuration, read-only; the gateway masks every secret before sending it. */
export function AdminConfig() {
  const config = useApi<{ data: Record<string, unknown> }>('/admin/config');
  const sections = Object.entries(config.data?.data ?? {});
  return (
    <Loadable loading={config.loading} error={config.error} empty={sections.length === 0}>
      <p class="hint">Read-only. Secrets (provider keys, header values, passwords in URLs) are masked by the gateway. Change the configuration file and restart to change it.</p>
      {sections.map(([name, value]) => (
        <section class="card" aria-label={`Configuration: ${name}`}>
          <h2>{name}</h2>
          <pre class="json">{JSON.stringify(value, null, 2)}</pre>
        </section>
      ))}
    </Loadable>
  );
}
