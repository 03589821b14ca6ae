import { Counter, type CounterConfiguration, type Registry } from 'prom-client';

/** One label set's series: its labels as prom-client takes them, and what was counted since the last scrape. */
interface Series {
  readonly labels: Record<string, string>;
  pending: number;
}

/**
 * A Prometheus counter whose label sets are bound once (issue 29: "labels bound once").
 * prom-client's `inc(labels)` builds a string from the label object, validates every label
 * and looks the series up by that string, on every call; the request path counts 5–8
 * series per request. Here a label set is found through one Map per label (the values are
 * strings the caller already holds: no string or object is made after a series' first
 * use) and its count added to a number; the counts reach the prom-client counter when it
 * is collected (a scrape, `registry.metrics()`, a worker's aggregation), so /metrics shows
 * the same series and values as before.
 */
export class BoundCounter<L extends string> {
  readonly counter: Counter<L>;
  private readonly names: readonly L[];
  private readonly root = new Map<string, unknown>();
  private readonly series: Series[] = [];

  constructor(config: CounterConfiguration<L> & { labelNames: readonly L[]; registers: Registry[] }) {
    if (config.labelNames.length < 1 || config.labelNames.length > 4) throw new Error('a bound counter has 1 to 4 labels');
    this.names = config.labelNames;
    const flush = (counter: Counter<L>): void => this.flushInto(counter);
    this.counter = new Counter<L>({
      ...config,
      collect() {
        flush(this);
      },
    });
  }

  /** Adds `value` (finite, > 0; anything else counts nothing) to the series of these label values, in `labelNames`' order. */
  inc(value: number, a: string, b?: string, c?: string, d?: string): void {
    if (!(value > 0) || value === Number.POSITIVE_INFINITY) return;
    this.seriesOf(a, b, c, d).pending += value;
  }

  private seriesOf(a: string, b: string | undefined, c: string | undefined, d: string | undefined): Series {
    const n = this.names.length;
    let node = this.root;
    let key = a;
    if (n > 1) {
      node = childOf(node, a);
      key = b!;
    }
    if (n > 2) {
      node = childOf(node, b!);
      key = c!;
    }
    if (n > 3) {
      node = childOf(node, c!);
      key = d!;
    }
    const found = node.get(key) as Series | undefined;
    if (found !== undefined) return found;
    const values = [a, b, c, d];
    const labels: Record<string, string> = {};
    for (let i = 0; i < n; i++) labels[this.names[i]!] = values[i]!;
    const s: Series = { labels, pending: 0 };
    node.set(key, s);
    this.series.push(s);
    return s;
  }

  private flushInto(counter: Counter<L>): void {
    for (const s of this.series) {
      if (s.pending === 0) continue;
      counter.inc(s.labels as Partial<Record<L, string>>, s.pending);
      s.pending = 0;
    }
  }
}

function childOf(map: Map<string, unknown>, key: string): Map<string, unknown> {
  let next = map.get(key) as Map<string, unknown> | undefined;
  if (next === undefined) {
    next = new Map();
    map.set(key, next);
  }
  return next;
}
