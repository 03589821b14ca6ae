import { Loadable, Table } from '../components.tsx';
import { useApi } from '../use-api.ts';

import type { EndpointHealth as Endpoint } from '../api/types.ts';

export function AdminHealth() {
  const health = useApi<{ data: { providers: { id: string; endpoints: Endpoint[] }[] } }>('/admin/health');
  const rows = (health.data?.data.providers ?? []).flatMap((p) => p.endpoints.map((e) => ({ ...e, provider: p.id })));
  return (
    <Loadable loading={health.loading} error={health.error} empty={rows.length === 0}>
      <Table
        label="Endpoint health"
        rows={rows}
        pageSize={50}
        rowKey={(e) => e.endpoint_id}
        columns={[
          { key: 'provider', label: 'Provider', render: (e) => e.provider, sort: (e) => e.provider },
          { key: 'model', label: 'Model', render: (e) => <code>{e.model}</code>, sort: (e) => e.model },
          {
            key: 'circuit',
            label: 'Circuit',
            render: (e) => <span class={e.circuit === 'closed' ? 'badge on' : 'badge off'}>{e.circuit}</span>,
            sort: (e) => e.circuit,
          },
          { key: 'outage', label: 'Recent outage', render: (e) => (e.recent_outage ? 'yes' : 'no') },
          {
            key: 'uptime',
            label: 'Uptime 30 min',
            render: (e) => (e.uptime_last_30m == null ? '—' : `${e.uptime_last_30m}%`),
            numeric: true,
          },
          {
            key: 'latency',
            label: 'Latency p50',
            render: (e) => (e.latency_last_30m?.p50 == null ? '—' : `${e.latency_last_30m.p50} ms`),
            numeric: true,
          },
          {
            key: 'tput',
            label: 'Throughput p50',
            render: (e) => (e.throughput_last_30m?.p50 == null ? '—' : `${e.throughput_last_30m.p50} tok/s`),
            numeric: true,
          },
        ]}
      />
    </Loadable>
  );
}
