import assert from 'node:assert/strict';
import { contractCase } from './both-backends.ts';
import type { AccountMcpServerRow, McpCallRow } from '../../src/store/mcp-store.ts';

const NOW = '2026-03-01T10:00:00.000Z';

contractCase("accounts' MCP servers: created, listed per account and all, unique names per account, removed", async (s) => {
  for (const id of ['acct_1', 'acct_2'])
    await s.accounts.createAccount({ id, name: id, accountType: 'user', tier: 'free', defaultModel: null, now: NOW });
  const server = (id: string, accountId: string, name: string, at: string): AccountMcpServerRow => ({
    id,
    accountId,
    name,
    url: `https://mcp.example.com/${name}`,
    headers: { Authorization: `Bearer ${id}` },
    tools: name === 'b' ? ['x', 'y'] : null,
    createdAt: at,
  });
  await s.mcpServers.create(server('mcps_1', 'acct_1', 'a', '2026-03-01T10:00:01.000Z'));
  await s.mcpServers.create(server('mcps_2', 'acct_1', 'b', '2026-03-01T10:00:02.000Z'));
  await s.mcpServers.create(server('mcps_3', 'acct_2', 'a', '2026-03-01T10:00:03.000Z'));
  await assert.rejects(s.mcpServers.create(server('mcps_4', 'acct_1', 'a', NOW)), 'a name is unique in its account');
  const one = await s.mcpServers.list('acct_1');
  assert.deepEqual(
    one.map((r) => r.id),
    ['mcps_1', 'mcps_2'],
  );
  assert.deepEqual(one[1]!.tools, ['x', 'y']);
  assert.deepEqual(one[0]!.headers, { Authorization: 'Bearer mcps_1' });
  assert.deepEqual(
    (await s.mcpServers.listAll()).map((r) => r.id),
    ['mcps_1', 'mcps_2', 'mcps_3'],
  );
  assert.equal((await s.mcpServers.get('mcps_3'))?.accountId, 'acct_2');
  assert.equal(await s.mcpServers.remove('mcps_1'), true);
  assert.equal(await s.mcpServers.remove('mcps_1'), false);
  assert.equal(await s.mcpServers.get('mcps_1'), undefined);
  return { one, all: await s.mcpServers.listAll() };
});

contractCase('MCP tool calls: recorded, pages newest first on (at, id), filters', async (s) => {
  const row = (id: string, at: string, extra: Partial<McpCallRow> = {}): McpCallRow => ({
    id,
    at,
    accountId: 'acct_1',
    keyHash: 'k1',
    server: 'docs',
    tool: 'search',
    via: 'endpoint',
    status: 'ok',
    durationMs: 12,
    error: null,
    generationId: null,
    ...extra,
  });
  await s.mcpCalls.record(row('c1', '2026-03-01T10:00:00.000Z'));
  await s.mcpCalls.record(row('c2', '2026-03-01T10:00:01.000Z', { status: 'failed', error: 'timeout', durationMs: 30_000 }));
  await s.mcpCalls.record(
    row('c3', '2026-03-01T10:00:01.000Z', { accountId: 'acct_2', keyHash: 'k2', server: null, tool: 'nope__x', status: 'refused' }),
  );
  await s.mcpCalls.record(row('c4', '2026-03-01T10:00:02.000Z', { server: 'wiki', via: 'generation', generationId: 'gen_1' }));
  const all = await s.mcpCalls.list({}, null, 10);
  assert.deepEqual(
    all.map((r) => r.id),
    ['c4', 'c3', 'c2', 'c1'],
  );
  const first = await s.mcpCalls.list({}, null, 2);
  const last = first.at(-1)!;
  assert.deepEqual([...first, ...(await s.mcpCalls.list({}, [last.at, last.id], 10))], all, 'keyset pages walk the same rows');
  assert.deepEqual(
    (await s.mcpCalls.list({ accountId: 'acct_2' }, null, 10)).map((r) => r.id),
    ['c3'],
  );
  assert.deepEqual(
    (await s.mcpCalls.list({ keyHash: 'k1', server: 'docs' }, null, 10)).map((r) => r.id),
    ['c2', 'c1'],
  );
  assert.deepEqual(
    (await s.mcpCalls.list({ status: 'failed' }, null, 10)).map((r) => [r.id, r.error, r.durationMs]),
    [['c2', 'timeout', 30_000]],
  );
  return all;
});
