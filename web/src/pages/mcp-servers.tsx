import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { shortTime } from '../format.ts';
import { useApi } from '../use-api.ts';
import { errorText } from './key-forms.tsx';
import { asyncHandler } from '../async-handler.ts';

// The account's own MCP servers (docs/mcp-endpoint.md): their tools are served by the
// gateway's /mcp endpoint to the account's keys. Header values (tokens) are sent to the
// server and never shown again: the API answers their names only.

interface McpServer {
  id: string;
  name: string;
  url: string;
  header_names: string[];
  tools: string[] | null;
  created_at: string;
}

export function McpServers() {
  const servers = useApi<{ data: McpServer[] }>('/mcp-servers');
  const [error, setError] = useState('');
  const remove = async (s: McpServer): Promise<void> => {
    if (!confirm(`Remove the MCP server "${s.name}"? Its tools leave /mcp at once.`)) return;
    setError('');
    try {
      await api('DELETE', `/mcp-servers/${s.id}`);
    } catch (err) {
      setError(errorText(err));
    }
    servers.reload();
  };
  return (
    <>
      <p class="hint">
        Their tools, and those of the operator's servers, are served to this account's API keys at <code>/mcp</code>, named{' '}
        <code>&lt;server&gt;__&lt;tool&gt;</code>.
      </p>
      <AddServer onAdded={() => servers.reload()} />
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Loadable loading={servers.loading} error={servers.error} empty={(servers.data?.data.length ?? 0) === 0}>
        <Table
          label="MCP servers"
          rows={servers.data?.data ?? []}
          rowKey={(s) => s.id}
          columns={[
            { key: 'name', label: 'Name', sort: (s) => s.name, render: (s) => <code>{s.name}</code> },
            { key: 'url', label: 'URL', sort: (s) => s.url, render: (s) => <code>{s.url}</code> },
            {
              key: 'headers',
              label: 'Headers (values hidden)',
              render: (s) => (s.header_names.length === 0 ? 'none' : s.header_names.join(', ')),
            },
            { key: 'tools', label: 'Tools', render: (s) => (s.tools === null ? 'all' : s.tools.join(', ')) },
            { key: 'created', label: 'Added', sort: (s) => s.created_at, render: (s) => shortTime(s.created_at) },
            {
              key: 'actions',
              label: 'Actions',
              render: (s) => (
                <button type="button" class="danger" aria-label={`Remove ${s.name}`} onClick={() => void remove(s)}>
                  Remove
                </button>
              ),
            },
          ]}
        />
      </Loadable>
    </>
  );
}

function AddServer({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [header, setHeader] = useState('Authorization');
  const [value, setValue] = useState('');
  const [tools, setTools] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      const body: Record<string, unknown> = { name, url };
      if (header.trim() !== '' && value !== '') body.headers = { [header.trim()]: value };
      const list = tools
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (list.length > 0) body.tools = list;
      await api('POST', '/mcp-servers', body);
      setName('');
      setUrl('');
      setValue('');
      setTools('');
      onAdded();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Add an MCP server">
      <div>
        <label for="mcp-name">Name</label>
        <input
          id="mcp-name"
          required
          maxLength={32}
          pattern="[A-Za-z0-9_\-]+"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="mcp-url">URL</label>
        <input id="mcp-url" type="url" required value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="mcp-header">Header (optional)</label>
        <input id="mcp-header" value={header} onInput={(e) => setHeader((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="mcp-value">Its value (never shown again)</label>
        <input
          id="mcp-value"
          type="password"
          autoComplete="off"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <label for="mcp-tools">Only these tools (optional, comma-separated)</label>
        <input id="mcp-tools" value={tools} onInput={(e) => setTools((e.target as HTMLInputElement).value)} />
      </div>
      <button type="submit">Add server</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
