// The few parts of autocannon's programmatic API the benchmarks use (it ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p999: number;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }
  /** A run: awaitable for its result; emits 'response' (client, statusCode, bytes, responseTimeMs) per answer. */
  interface Instance extends EventEmitter, PromiseLike<Result> {}
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
