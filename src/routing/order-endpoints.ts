import { assertNever } from '../canonical/stream-part.ts';
import type { CompiledPreferences, RoutingSort } from './compile-preferences.ts';
import type { Candidate } from './filter-endpoints.ts';
import type { HealthStore } from './health/health-store.ts';
import { slugMatches } from './route-endpoint.ts';
import { drawWeighted } from './weighted-draw.ts';

/**
 * Puts one model's candidates in the order they will be tried (in place):
 *
 * 1. endpoints named in `order` (in that order), then the others;
 * 2. within each, endpoints that fit the request (tier 0) before those lacking a preferred
 *    parameter or room for `max_tokens`;
 * 3. within a tier: with `sort` (or `:nitro` / `:floor`), by price, throughput or latency,
 *    deterministically; otherwise cheapest first with endpoints that had a recent outage
 *    last, and (only when no `order` is given) the first one drawn at random weighted by
 *    1 / price² among the healthy endpoints of the best tier.
 *
 * Ties go to the cheaper endpoint, then to catalog order.
 */
export function orderCandidates(cands: Candidate[], prefs: CompiledPreferences, health: HealthStore, random: () => number): void {
  const order = prefs.order;
  const sort = prefs.sort;
  for (const c of cands) {
    const rank = order === null ? -1 : orderRank(c, order);
    if (rank >= 0) {
      c.group = 0;
      c.key = rank;
      c.figure = sort === null ? 0 : sortFigure(c, sort, health);
    } else {
      c.group = 1;
      c.key = sort === null ? (health.hasRecentOutage(c.route.endpoint.id) ? 1 : 0) : sortFigure(c, sort, health);
      c.figure = 0;
    }
  }
  sortCandidates(cands);
  if (order === null && sort === null) drawFirst(cands, random);
}

/**
 * Sorts in place, stably, as Array.prototype.sort would. A model has a handful of endpoints:
 * an insertion sort of so few allocates nothing, where V8's sort allocates ~0.8 KB of working
 * state on every call whatever the length (issue 29: once per model of every request).
 */
function sortCandidates(cands: Candidate[]): void {
  if (cands.length > 16) {
    cands.sort(compareCandidates);
    return;
  }
  for (let i = 1; i < cands.length; i++) {
    const c = cands[i]!;
    let j = i - 1;
    while (j >= 0 && compareCandidates(cands[j]!, c) > 0) {
      cands[j + 1] = cands[j]!;
      j--;
    }
    cands[j + 1] = c;
  }
}

function orderRank(c: Candidate, order: readonly string[]): number {
  for (let i = 0; i < order.length; i++) if (slugMatches(c.route, order[i]!)) return i;
  return -1;
}

/** Lower is better; endpoints without figures yet go after those with. */
function sortFigure(c: Candidate, sort: RoutingSort, health: HealthStore): number {
  switch (sort) {
    case 'price':
      return 0; // the price tie-break does it
    case 'throughput': {
      const t = health.health(c.route.endpoint.id).throughputLast30m;
      return t === null ? Infinity : -t.p50;
    }
    case 'latency': {
      const l = health.health(c.route.endpoint.id).latencyLast30m;
      return l === null ? Infinity : l.p50;
    }
    default:
      return assertNever(sort);
  }
}

function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.group !== b.group) return a.group - b.group;
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  if (a.figure !== b.figure) return a.figure < b.figure ? -1 : 1;
  const pa = a.route.listPrice;
  const pb = b.route.listPrice;
  if (pa !== pb) return pa < pb ? -1 : 1;
  return a.route.index - b.route.index;
}

/**
 * The weighted draw among the leading block (same tier, same demotion) of the sorted
 * list: the drawn endpoint moves to the front, the others keep their cheapest-first order
 * as fallbacks.
 */
function drawFirst(cands: Candidate[], random: () => number): void {
  const n = cands.length;
  if (n < 2) return;
  const head = cands[0]!;
  let block = 1;
  while (block < n && cands[block]!.tier === head.tier && cands[block]!.key === head.key) block++;
  const pick = drawWeighted(cands, block, candidateWeight, random);
  if (pick === 0) return;
  const chosen = cands[pick]!;
  for (let i = pick; i > 0; i--) cands[i] = cands[i - 1]!;
  cands[0] = chosen;
}

function candidateWeight(c: Candidate): number {
  return c.route.weight;
}
