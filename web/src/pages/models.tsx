import { useState } from 'preact/hooks';
import { BASE } from '../api.ts';
import { CopyButton, Loadable, Table } from '../components.tsx';
import { int, perMillion } from '../format.ts';
import { useApi } from '../use-api.ts';
import { taskPrices } from '../kinds.ts';

import type { Model, ModelEndpoint } from '../api/types.ts';

/** "text, image → text": what the model takes and what it produces (OpenRouter's modality names). */
function modalities(m: Model): string {
  const a = m.architecture;
  return a === undefined ? '—' : `${a.input_modalities.join(', ')} → ${a.output_modalities.join(', ')}`;
}

export function Models() {
  const models = useApi<{ data: Model[] }>('/models');
  const [open, setOpen] = useState<Model | null>(null);
  return (
    <>
      <Loadable loading={models.loading} error={models.error} empty={(models.data?.data.length ?? 0) === 0}>
        <Table
          label="Models"
          rows={models.data?.data ?? []}
          rowKey={(m) => m.id}
          onRow={setOpen}
          columns={[
            { key: 'id', label: 'Model', render: (m) => <code>{m.id}</code>, sort: (m) => m.id },
            {
              key: 'kind',
              label: 'Kind',
              render: (m) => (
                <span class="badge kind" data-testid="model-kind">
                  {m.kind ?? 'chat'}
                </span>
              ),
              sort: (m) => m.kind ?? 'chat',
            },
            { key: 'modalities', label: 'Modalities', render: (m) => <span data-testid="model-modalities">{modalities(m)}</span> },
            { key: 'ctx', label: 'Context', render: (m) => int(m.context_length), sort: (m) => m.context_length, numeric: true },
            {
              key: 'in',
              label: 'Input / 1M',
              render: (m) => perMillion(m.pricing.prompt),
              sort: (m) => Number(m.pricing.prompt),
              numeric: true,
            },
            {
              key: 'out',
              label: 'Output / 1M',
              render: (m) => perMillion(m.pricing.completion),
              sort: (m) => Number(m.pricing.completion),
              numeric: true,
            },
            { key: 'other', label: 'Other prices', render: (m) => <span data-testid="model-task-prices">{taskPrices(m.pricing)}</span> },
            { key: 'caps', label: 'Capabilities', render: (m) => m.capabilities.join(', ') },
          ]}
        />
      </Loadable>
      {open !== null && <ModelDetail model={open} onClose={() => setOpen(null)} />}
    </>
  );
}

type EndpointHealth = ModelEndpoint;

function ModelDetail({ model, onClose }: { model: Model; onClose: () => void }) {
  const endpoints = useApi<{ data: { endpoints: EndpointHealth[] } }>(`/models/${model.id}/endpoints`);
  const sample = `from openai import OpenAI

client = OpenAI(base_url="${location.origin}${BASE}/v1", api_key="<your API key>")
reply = client.chat.completions.create(
    model="${model.id}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(reply.choices[0].message.content)`;
  return (
    <section class="card" aria-label={`Model ${model.id}`}>
      <h2>
        {model.name} <code>{model.id}</code>
      </h2>
      <h3>Endpoints</h3>
      <Loadable loading={endpoints.loading} error={endpoints.error}>
        <Table
          label="Endpoints"
          rows={endpoints.data?.data.endpoints ?? []}
          rowKey={(e) => `${e.provider_name ?? ''}${e.name ?? ''}`}
          columns={[
            { key: 'provider', label: 'Provider', render: (e) => e.provider_name ?? e.name ?? '—' },
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
      <h3>Code sample</h3>
      <pre class="code">{sample}</pre>
      <CopyButton text={sample} label="Copy code" />
      <button type="button" class="link" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
