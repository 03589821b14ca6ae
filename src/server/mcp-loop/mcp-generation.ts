import { mcpScopeOf } from '../../mcp/mcp-scope.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CanonicalRequest, ToolCallPart } from '../../canonical/request.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { logSafely } from '../../providers/http/scrub-secrets.ts';
import type { FrontDialect } from '../../front/front-dialect.ts';
import { FoldingSink } from '../../pipeline/folding-sink.ts';
import type { AdmittedRequest, GenerationOutcome } from '../../pipeline/generation-pipeline.ts';
import type { PlannedAttempt } from '../../catalog/types.ts';
import { RequestDeadlineError, type ExecutionResult } from '../../routing/execute-attempts.ts';
import type { ToolCallRecord } from '../../store/generation-records.ts';
import { requestAuth } from '../route-access.ts';
import { ClientAbort, requestInfo } from '../request-helpers.ts';
import { SseWriter } from '../sse-writer.ts';
import { resumeIdleTimeout } from '../connection-guards.ts';
import { afterResponse, DialectSseSink, responseMeta } from '../generation-route.ts';
import { McpLoop, UsageSum } from './mcp-conversation.ts';
import { McpTurnSink } from './mcp-turn-sink.ts';
import { resolveMcpTools, type McpToolSet } from './resolve-mcp-tools.ts';
import { runMcpCalls } from './run-mcp-calls.ts';
import { recordLoopCalls, type RecordToolCallDeps } from '../mcp-endpoint/record-tool-call.ts';
import type { InForce } from '../wiring/in-force.ts';
import type { InFlight } from '../in-flight.ts';

/** What mcp-generation.ts uses of the services (handed out by build-app.ts). */
export type McpGenerationDeps = RecordToolCallDeps & {
  inForce: Pick<InForce, 'config' | 'mcp' | 'pipeline'>;
  inFlight: InFlight;
};

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * A model call that names MCP servers (docs/tools.md): the servers' tools are added to the
 * model's; while the model calls them, the gateway runs the calls, appends their results
 * and calls the model again, up to `mcp.max_tool_turns` turns and `mcp.total_timeout_ms`.
 * Each turn is a request of its own to the pipeline — admitted (limits, the credit hold),
 * run, charged and recorded as any — its record naming the first turn's generation as its
 * parent and listing the MCP calls whose results it was given. The client gets one answer
 * (streamed as it happens, or whole), with the calls in its dialect's form, under the first
 * turn's generation id. Calls of the client's own tools end the loop and go back to it.
 */
export async function runMcpGeneration(
  deps: McpGenerationDeps,
  dialect: FrontDialect,
  request: FastifyRequest,
  reply: FastifyReply,
  req: CanonicalRequest,
): Promise<unknown> {
  const auth = requestAuth(request);
  const pipeline = deps.inForce.pipeline;
  const registry = deps.inForce.mcp;
  const bounds = registry.config;
  // The whole loop's bound: listing the tools, every turn and every call.
  const total = new AbortController();
  const totalTimer = setTimeout(() => total.abort(new RequestDeadlineError()), bounds.totalTimeoutMs);
  totalTimer.unref();
  let set: McpToolSet;
  try {
    set = await resolveMcpTools(registry, req.mcp!, auth.account.id, req.tools, total.signal, mcpScopeOf(auth));
  } catch (err) {
    clearTimeout(totalTimer);
    throw total.signal.aborted
      ? new GatewayError('timeout', `The MCP servers did not list their tools within ${bounds.totalTimeoutMs} ms (mcp.total_timeout_ms).`)
      : err;
  }
  const info = requestInfo(request, dialect.name);
  const loop = new McpLoop(req, set, bounds.maxToolTurns);
  let admitted: AdmittedRequest;
  try {
    admitted = await pipeline.admit(auth, loop.turnRequest(), info);
  } catch (err) {
    clearTimeout(totalTimer);
    throw err;
  }
  reply.headers(admitted.responseHeaders);
  const parentId = admitted.generationId;
  const prelude: StreamPart[] = set.lists.map((list) => ({ type: 'server-tool-list', list }));

  const client = new ClientAbort(reply, deps.inForce.config.timeouts.disconnectGraceMs);
  const leave = deps.inFlight.enter(client.controller);
  const live = req.stream;
  const writer = live ? new SseWriter((reply.hijack(), reply.raw)) : null;
  const outer = live ? new DialectSseSink(dialect, writer!, admitted, reply) : new FoldingSink();
  if (!live) for (const p of prelude) outer.part(p);

  let outcome: GenerationOutcome | null = null;
  let served: PlannedAttempt | null = null;
  let error: GatewayError | null = null;
  let costNanos = 0n;
  let costKnown = false;
  const usage = new UsageSum();
  let pendingCalls: ToolCallRecord[] = [];
  try {
    for (let turn = 1; ; turn++) {
      if (turn > 1) {
        try {
          admitted = await pipeline.admit(auth, loop.turnRequest(), { ...info, parentId, toolCalls: pendingCalls });
        } catch (err) {
          if (!(err instanceof GatewayError)) throw err;
          error = err;
          break;
        }
      }
      pendingCalls = [];
      const sink = new McpTurnSink(outer, (name) => set.bindings.has(name), {
        live,
        first: turn === 1,
        prelude: turn === 1 && live ? prelude : [],
      });
      const abort = linkedAbort(client.controller.signal, total.signal);
      try {
        outcome = await pipeline.run(admitted, sink, abort.controller, client);
      } finally {
        abort.release();
      }
      const ex = outcome.execution;
      if (outcome.served !== null) served = outcome.served;
      if (outcome.cost !== null) {
        costNanos += outcome.cost.totalNanos;
        costKnown = true;
      }
      if (outcome.usage !== null) usage.add(outcome.usage);
      if (ex.error !== null || ex.cancelled) {
        error = ex.error;
        break;
      }
      if (!live) sink.flush();
      const answer = sink.folder.response;
      const calls = answer.content.filter((p): p is ToolCallPart => p.type === 'tool-call');
      const mcpCalls = calls.filter((c) => set.bindings.has(c.name));
      const clientCalls = calls.length - mcpCalls.length;
      if (mcpCalls.length === 0 || turn >= bounds.maxToolTurns) {
        sink.emit({ type: 'usage', usage: usage.total() });
        sink.emit({ type: 'finish', reason: finalFinish(answer.finish, mcpCalls.length > 0 && clientCalls === 0) });
        if (!live) sink.flush();
        break;
      }
      const ran = await runMcpCalls(mcpCalls, set.bindings, registry, total.signal, (p) => sink.emit(p));
      pendingCalls = ran.records;
      void recordLoopCalls(deps, auth, ran.records, admitted.generationId);
      if (total.signal.aborted) {
        error = new GatewayError(
          'timeout',
          `The request's MCP tool loop did not end within ${bounds.totalTimeoutMs} ms (mcp.total_timeout_ms).`,
        );
        break;
      }
      if (client.left) break;
      if (clientCalls > 0) {
        // The client's own tools were called too: the answer goes back with them (and the MCP calls run).
        sink.emit({ type: 'usage', usage: usage.total() });
        sink.emit({ type: 'finish', reason: answer.finish ?? { unified: 'tool_calls', raw: null } });
        if (!live) sink.flush();
        break;
      }
      if (!live) sink.flush();
      loop.addTurn(answer.content, ran.results);
    }
  } catch (thrown) {
    // A bug, not an upstream's or a server's failure (those are outcomes): the answer ends with it, the stream closed.
    if (!(thrown instanceof GatewayError)) logSafely(`internal error in the MCP loop: ${(thrown as Error)?.stack ?? String(thrown)}`);
    error = thrown instanceof GatewayError ? thrown : new GatewayError('internal_error', 'Internal server error');
  } finally {
    clearTimeout(totalTimer);
    client.release();
    if (live) {
      (outer as DialectSseSink).stopKeepAlive();
    } else {
      leave();
    }
  }
  const execution: ExecutionResult = {
    ...(outcome?.execution ?? { served: null, attempts: [], firstTokenMs: null, upstreamWaitMs: 0 }),
    error,
    cancelled: client.left,
  };
  const whole: GenerationOutcome = {
    execution,
    usage: usage.total(),
    cost: costKnown
      ? { totalNanos: costNanos, breakdown: { prompt: '0', completion: '0', cache_read: '0', cache_write: '0', request: '0', image: '0' } }
      : null,
    served,
  };
  if (live) {
    try {
      (outer as DialectSseSink).close(whole);
      resumeIdleTimeout(request, deps.inForce.config.server.idleTimeoutMs);
    } finally {
      afterResponse(reply, leave);
    }
    return reply;
  }
  if (client.left) return reply.hijack();
  if (error !== null) throw error;
  const meta = responseMeta(admitted, served ?? admitted.plan[0]!, whole);
  meta.id = parentId;
  const encoded = dialect.encodeResponse((outer as FoldingSink).folder.response, meta, req);
  reply.type(JSON_UTF8);
  return JSON.stringify(encoded);
}

/** The answer's finish: the last turn's; a turn that still called MCP tools past the bound says so. */
function finalFinish(finish: FinishReason | null, cutAtBound: boolean): FinishReason {
  if (cutAtBound) return { unified: 'stop', raw: 'max_tool_turns' };
  return finish ?? { unified: 'stop', raw: null };
}

/** A turn's own controller: aborted by the client leaving or the loop's deadline; the turn's own deadline aborts only it. */
function linkedAbort(...signals: AbortSignal[]): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const listeners = signals.map((signal) => {
    const onAbort = (): void => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
  return { controller, release: () => listeners.forEach((off) => off()) };
}
