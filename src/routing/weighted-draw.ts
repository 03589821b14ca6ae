/**
 * Draws an index in [0, count) of `items` with probability proportional to its weight.
 * Infinite weights (free endpoints: 1 / 0²) share all the probability equally; all-zero
 * weights fall back to a uniform draw. `random` is injected so that tests are deterministic.
 */
export function drawWeighted<T>(items: readonly T[], count: number, weightOf: (item: T) => number, random: () => number): number {
  if (count <= 1) return 0;
  let infinite = 0;
  let total = 0;
  for (let i = 0; i < count; i++) {
    const w = weightOf(items[i]!);
    if (w === Infinity) infinite++;
    else if (w > 0) total += w;
  }
  if (infinite > 0) {
    let k = Math.min(infinite - 1, Math.floor(random() * infinite));
    for (let i = 0; i < count; i++) {
      if (weightOf(items[i]!) === Infinity && k-- === 0) return i;
    }
  }
  if (total <= 0) return Math.min(count - 1, Math.floor(random() * count));
  let target = random() * total;
  let last = 0;
  for (let i = 0; i < count; i++) {
    const w = weightOf(items[i]!);
    if (w <= 0) continue;
    last = i;
    target -= w;
    if (target < 0) return i;
  }
  // Rounding can leave a sliver past the last weight.
  return last;
}
