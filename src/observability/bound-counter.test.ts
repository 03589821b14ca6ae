import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { seededRandom } from '../canonical/seeded-random.test-util.ts';
import { BoundCounter } from './bound-counter.ts';

// A counter with its label sets bound once (bound-counter.ts) exposes exactly what
// prom-client's own counter does for the same increments, whenever it is scraped.

test('the same series and values as a prom-client counter given the same increments, scraped at any time', async () => {
  const registry = new Registry();
  const bound = new BoundCounter({
    name: 'bound_total',
    help: 'h',
    labelNames: ['route', 'model', 'provider', 'status_class'],
    registers: [registry],
  });
  const plain = new Counter({
    name: 'plain_total',
    help: 'h',
    labelNames: ['route', 'model', 'provider', 'status_class'],
    registers: [registry],
  });
  const random = seededRandom(29);
  const pick = (xs: string[]): string => xs[Math.floor(random() * xs.length)]!;
  const scrape = async (): Promise<[string, string]> => {
    const text = await registry.metrics();
    const lines = (name: string): string =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`))
        .map((l) => l.slice(name.length))
        .sort()
        .join('\n');
    return [lines('bound_total'), lines('plain_total')];
  };
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 400; i++) {
      const labels = [
        pick(['chat', 'messages']),
        pick(['acme/a', 'acme/b', 'unknown']),
        pick(['p1', 'p2', 'none']),
        pick(['2xx', '4xx', 'cancelled']),
      ] as const;
      const value = random() < 0.1 ? 0 : Math.floor(random() * 1000);
      bound.inc(value, ...labels);
      if (value > 0) plain.inc({ route: labels[0], model: labels[1], provider: labels[2], status_class: labels[3] }, value);
    }
    const [b, p] = await scrape();
    assert.ok(b.length > 0);
    assert.equal(b, p, `after round ${round}`);
  }
  // Scraped again with nothing new: nothing counted twice.
  const [b, p] = await scrape();
  assert.equal(b, p);
});

test('one to four labels; what is not a positive finite count counts nothing', async () => {
  const registry = new Registry();
  const one = new BoundCounter({ name: 'one_total', help: 'h', labelNames: ['reason'], registers: [registry] });
  one.inc(2, 'a');
  one.inc(-1, 'a');
  one.inc(Number.NaN, 'b');
  one.inc(Number.POSITIVE_INFINITY, 'c');
  one.inc(3, 'a');
  const text = await registry.metrics();
  assert.match(text, /^one_total\{reason="a"\} 5$/m);
  assert.doesNotMatch(text, /reason="[bc]"/);
  assert.throws(() => new BoundCounter({ name: 'none_total', help: 'h', labelNames: [], registers: [registry] }), /1 to 4 labels/);
});
