import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// GET /metrics with several workers (`serve --workers N`): any worker may answer, and it
// answers for all of them. The worker asks the primary over the cluster's IPC channel; the
// primary asks every worker for its registry (prom-client's AggregatorRegistry, which
// workers answer with `getMetricsAsJSON()`), sums them (counters, histograms and most
// gauges; see the aggregators in gateway-metrics.ts) and sends the text back.

const REQUEST = 'switchyard:metrics-request';
const RESPONSE = 'switchyard:metrics-response';
/** prom-client gives each worker 5 s to answer; the asking worker waits a little longer. */
const ANSWER_TIMEOUT_MS = 6_000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}
interface MetricsResponse {
  type: typeof RESPONSE;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the workers' requests for the figures of all workers. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const answer = (reply: Omit<MetricsResponse, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id: message.id, ...reply });
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (err: Error) => answer({ error: err.message }),
    );
  });
}

/**
 * In a worker: offers `registry` to the primary's aggregation, and returns the scrape that
 * asks the primary for the figures of every worker.
 */
export function aggregateAcrossWorkers(registry: Registry): () => Promise<string> {
  // Constructing one adds prom-client's worker listener (it answers the primary with `registry`).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (!isResponse(message)) return;
    const w = waiting.get(message.id);
    if (w === undefined) return;
    waiting.delete(message.id);
    if (message.text !== undefined) w.resolve(message.text);
    else w.reject(new Error(`the primary could not gather the workers' metrics: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the primary did not send the workers' metrics within ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      const settle = <T>(fn: (v: T) => void) => (v: T): void => {
        clearTimeout(timer);
        fn(v);
      };
      waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
      process.send!({ type: REQUEST, id } satisfies MetricsRequest);
    });
}

function isRequest(m: unknown): m is MetricsRequest {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === REQUEST && typeof (m as { id?: unknown }).id === 'number';
}

function isResponse(m: unknown): m is MetricsResponse {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === RESPONSE && typeof (m as { id?: unknown }).id === 'number';
}
