import type { ToolCallPart, ToolResultPart } from '../../canonical/request.ts';
import type { ServerToolCall } from '../../canonical/server-tools.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { McpRegistry } from '../../mcp/mcp-registry.ts';
import type { ToolCallRecord } from '../../store/generation-records.ts';
import { McpCallError } from '../../mcp/mcp-types.ts';
import type { McpToolBinding } from './resolve-mcp-tools.ts';

/**
 * Runs the MCP calls of one model turn, all at once: each is shown as it starts and as it
 * ends (`emit`), and its result (or failure: a timeout, an answer past the byte bound, a
 * server error) becomes the tool result the model reads next. Never throws for a call
 * that failed: the model is told, and decides.
 */
export async function runMcpCalls(
  calls: readonly ToolCallPart[],
  bindings: ReadonlyMap<string, McpToolBinding>,
  registry: McpRegistry,
  signal: AbortSignal,
  emit: (part: StreamPart) => void,
): Promise<{ results: ToolResultPart[]; records: ToolCallRecord[] }> {
  const started = calls.map((call) => {
    const binding = bindings.get(call.name)!;
    const shown: ServerToolCall = {
      id: `mcp_${call.id}`,
      server: binding.server.name,
      name: binding.tool,
      arguments: call.arguments,
      status: 'in_progress',
    };
    emit({ type: 'server-tool-call', call: shown });
    return { call, binding, shown };
  });
  const done = await Promise.all(
    started.map(async ({ call, binding, shown }) => {
      const t0 = performance.now();
      let text: string;
      let status: string;
      let failed: boolean;
      try {
        const args = parseArguments(call.arguments);
        const result = await registry.callTool(binding.server, binding.tool, args, signal);
        text = result.text;
        failed = result.isError;
        status = result.isError ? 'tool_error' : 'ok';
      } catch (err) {
        if (!(err instanceof McpCallError) && !(err instanceof ArgumentsError)) throw err;
        text = err.message;
        failed = true;
        status = err instanceof McpCallError ? err.reason : 'bad_arguments';
      }
      const ended: ServerToolCall = failed ? { ...shown, status: 'failed', error: text } : { ...shown, status: 'completed', output: text };
      emit({ type: 'server-tool-call', call: ended });
      const result: ToolResultPart = { type: 'tool-result', toolCallId: call.id, name: call.name, content: text };
      if (failed) result.isError = true;
      return { result, record: { server: binding.server.name, tool: binding.tool, ms: Math.round(performance.now() - t0), status } };
    }),
  );
  return { results: done.map((d) => d.result), records: done.map((d) => d.record) };
}

class ArgumentsError extends Error {}

function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ArgumentsError('the arguments are not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ArgumentsError('the arguments are not a JSON object');
  return value as Record<string, unknown>;
}
