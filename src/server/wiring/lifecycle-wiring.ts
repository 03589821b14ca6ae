import type { SettlementQueue } from '../../billing/settlement-queue.ts';
import type { McpClient } from '../../mcp/mcp-client.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { UpstreamClient } from '../../providers/http/upstream-client.ts';
import { compactHeap } from '../../runtime/compact-heap.ts';
import { shrinkHeapWhenIdle } from '../../runtime/idle-heap-shrink.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { FleetServices } from '../fleet-services.ts';
import type { RecordsRetention } from '../records-retention.ts';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { EngineParts, SqliteWriter } from '../open-stores.ts';
import type { GovernanceRetention } from '../governance-retention.ts';

/** Everything that runs until the gateway stops, in the order it is stopped. */
export interface Running {
  stopTimers: () => void;
  retention: RecordsRetention;
  governanceRetention: GovernanceRetention;
  webhooks: WebhookDispatcher;
  settlements: SettlementQueue;
  upstream: UpstreamClient;
  mcpClient: McpClient;
  telemetry: Telemetry;
  unsubscribe: (() => void) | undefined;
  fleet: FleetServices | null;
  writer: SqliteWriter | null;
  lock: EngineParts['lock'];
  stores: Stores;
}

/** The shutdown: timers and loops, then flush the settlements, then end the writer thread, then release the lease (the next gateway may start). */
export async function closeInOrder(r: Running): Promise<void> {
  r.stopTimers();
  await r.retention.stop();
  await r.governanceRetention.stop();
  await r.webhooks.stop();
  await r.settlements.close();
  await r.upstream.close();
  await r.mcpClient.close();
  await r.telemetry.tracing?.shutdown();
  r.unsubscribe?.();
  await r.fleet?.close();
  await r.writer?.close();
  r.lock.release();
  await r.stores.close();
}

/**
 * Once the gateway serves: one memory-reducing collection on the main thread and on the
 * SQLite writer thread, then again whenever a busy spell is over (runtime/idle-heap-shrink.ts).
 */
export function heapCompaction(writer: SqliteWriter | null): { afterStart(): Promise<void>; stop(): void } {
  let stopIdleShrink: (() => void) | null = null;
  const shrink = async (): Promise<void> => {
    compactHeap();
    // Best effort: a writer thread restarting just now starts with a small heap anyway.
    await writer?.compactHeap().catch(() => {});
  };
  return {
    async afterStart() {
      await shrink();
      stopIdleShrink ??= shrinkHeapWhenIdle(shrink);
    },
    stop() {
      stopIdleShrink?.();
    },
  };
}
