import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../../auth/authenticate.ts';
import type { McpCallRow } from '../../store/mcp-store.ts';
import type { ToolCallRecord } from '../../store/generation-records.ts';
import type { ToolCallOutcome } from './gateway-mcp-server.ts';
import type { Stores } from '../../store/store-contract.ts';

/** What record-tool-call.ts uses of the services (handed out by build-app.ts). */
export interface RecordToolCallDeps {
  stores: Pick<Stores, 'mcpCalls'>;
  now: () => number;
}

// The record of MCP tool calls (table mcp_tool_calls, GET /admin/mcp/calls): one row per
// call the gateway made for a key, through /mcp or within a model request's tool loop;
// never the arguments or the result.

/** Records one tool call; a failed write costs the record, never the call. */
export async function recordToolCall(
  deps: RecordToolCallDeps,
  auth: AuthContext,
  via: McpCallRow['via'],
  o: ToolCallOutcome,
  generationId: string | null = null,
): Promise<void> {
  const row: McpCallRow = {
    id: `mcpc_${randomBytes(12).toString('hex')}`,
    at: new Date(deps.now()).toISOString(),
    accountId: auth.account.id,
    keyHash: auth.key.hash,
    server: o.server,
    tool: o.tool.slice(0, 256),
    via,
    status: o.status,
    durationMs: o.durationMs,
    error: o.error,
    generationId,
  };
  try {
    await deps.stores.mcpCalls.record(row);
  } catch {
    // The call was made; losing its record is better than failing it.
  }
}

/** The calls one model turn's tool loop ran (mcp-loop/run-mcp-calls.ts), recorded under the turn's generation id. */
export async function recordLoopCalls(
  deps: RecordToolCallDeps,
  auth: AuthContext,
  calls: readonly ToolCallRecord[],
  generationId: string,
): Promise<void> {
  await Promise.all(
    calls.map((c) =>
      recordToolCall(
        deps,
        auth,
        'generation',
        {
          server: c.server,
          tool: c.tool,
          durationMs: c.ms,
          status: c.status === 'ok' || c.status === 'tool_error' ? c.status : 'failed',
          error: c.status === 'ok' || c.status === 'tool_error' ? null : c.status,
        },
        generationId,
      ),
    ),
  );
}
