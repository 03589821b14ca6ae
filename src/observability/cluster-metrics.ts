import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// GET /metrics with several workers (`serve --workers N`): any worker may answer, and it
// answers for all of them. The worker asks the primary over the cluster's IPC channel; the
// primary asks every worker that serves for its registry (`getMetricsAsJSON()`), merges
// them with prom-client's `AggregatorRegistry.aggregate` (counters and histograms summed,
// gauges by their `aggregator`: see gateway-metrics.ts) and sends the text back. Only
// workers that listen are asked, so one still starting (a restart) does not stall scrapes;
// one that does not answer in time fails the scrape rather than making counters seem to drop.

const ASK = 'switchyard:metrics-ask';
const ANSWER = 'switchyard:metrics-answer';
const COLLECT = 'switchyard:metrics-collect';
const COLLECTED = 'switchyard:metrics-collected';
/** How long the primary waits for each worker's registry. */
const COLLECT_TIMEOUT_MS = 5_000;
/** How long the asking worker waits for the primary. */
const ANSWER_TIMEOUT_MS = 6_000;

type Message = { type: string; id: number; text?: string; error?: string; metrics?: object[] };

function isMessage(m: unknown, type: string): m is Message {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type && typeof (m as { id?: unknown }).id === 'number';
}

/** In the primary: answers the workers' requests with the figures of every worker `serving()` lists. */
export function serveClusterMetrics(serving: () => Worker[]): void {
  let next = 0;
  const pending = new Map<number, (from: Worker, metrics: object[]) => void>();
  cluster.on('message', (worker, message: unknown) => {
    if (isMessage(message, COLLECTED)) {
      pending.get(message.id)?.(worker, message.metrics ?? []);
      return;
    }
    if (!isMessage(message, ASK)) return;
    const answer = (reply: { text?: string; error?: string }): void => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...reply });
    };
    const workers = serving().filter((w) => w.isConnected());
    const id = next++;
    const got = new Map<Worker, object[]>();
    const timer = setTimeout(() => {
      pending.delete(id);
      answer({
        error: `${workers.length - got.size} of ${workers.length} workers did not send their metrics within ${COLLECT_TIMEOUT_MS / 1000} s`,
      });
    }, COLLECT_TIMEOUT_MS);
    pending.set(id, (from, metrics) => {
      if (!workers.includes(from)) return;
      got.set(from, metrics);
      if (got.size < workers.length) return;
      clearTimeout(timer);
      pending.delete(id);
      AggregatorRegistry.aggregate([...got.values()])
        .metrics()
        .then(
          (text) => answer({ text }),
          (err: Error) => answer({ error: err.message }),
        );
    });
    for (const w of workers) w.send({ type: COLLECT, id });
  });
}

/**
 * In a worker: sends `registry` to the primary when it collects, and returns the scrape that
 * asks the primary for the figures of every worker.
 */
export function aggregateAcrossWorkers(registry: Registry): () => Promise<string> {
  let next = 0;
  const waiting = new Map<number, (m: Message) => void>();
  process.on('message', (message: unknown) => {
    if (isMessage(message, COLLECT)) {
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics }));
      return;
    }
    if (isMessage(message, ANSWER)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the primary did not send the workers' metrics within ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      waiting.set(id, (m) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (m.text !== undefined) resolve(m.text);
        else reject(new Error(`the primary could not gather the workers' metrics: ${m.error ?? 'no answer'}`));
      });
      process.send!({ type: ASK, id });
    });
}
