import { createHash } from 'node:crypto';
import type { CredentialInput } from '../config/types.ts';
import type { CredentialCandidate, CredentialMark, SharedCredentialUse } from './shared-credential-use.ts';

// A provider's pool of credentials (`api_keys:`): which one an attempt uses, and what each
// has left. Counted in this process over a sliding minute; in a fleet (Redis configured) the
// budgets, cool-downs, spent headroom and removals are also kept in Redis (`share`), so they
// hold for the fleet (shared-credential-use.ts): each pick's claim (its one round trip)
// answers the fleet's marks on the credentials it passed over, which this process then
// keeps too; a change is written only when it happens. Built with the catalog, so a reload
// starts every credential's own state afresh (a removed one comes back); the fleet's counts
// outlive reloads (a removal for an hour, or until the key is replaced).

/** A cool-down asked by an upstream is held at most this long. */
export const MAX_COOLDOWN_MS = 5 * 60_000;
/** A 429 or quota error without `retry-after` cools its credential this long. */
export const DEFAULT_COOLDOWN_MS = 30_000;
const WINDOW_MS = 60_000;

/** The credential an attempt carries: its label names it everywhere, its key goes upstream only. */
export interface PickedCredential {
  readonly label: string;
  readonly key: string;
}

/** One credential's state, for the admin API (never the key). */
export interface CredentialStatus {
  label: string;
  weight: number;
  health: 'ok' | 'cooling_down' | 'removed';
  cooling_down_until: string | null;
  removed_reason: string | null;
  rpm: number | null;
  tpm: number | null;
  requests_last_minute: number;
  tokens_last_minute: number;
  /** Requests left this minute: the lesser of its own budget and what the upstream last said; null when unbounded. */
  remaining_requests: number | null;
  remaining_tokens: number | null;
  models: string[] | null;
}

class Credential {
  readonly input: CredentialInput;
  readonly models: RegExp[] | null;
  /** Epoch ms of each request in the window, oldest first. */
  private readonly uses: number[] = [];
  /** [epoch ms, tokens] of each counted answer in the window. */
  private readonly tokens: Array<[number, number]> = [];
  coolUntil = 0;
  removed: string | null = null;
  /** The upstream's own `x-ratelimit-remaining-*`, and until when it holds (its reset, or a minute). */
  upstreamRequests: { left: number; until: number } | null = null;
  upstreamTokens: { left: number; until: number } | null = null;

  constructor(input: CredentialInput) {
    this.input = input;
    this.models = input.models === undefined ? null : input.models.map(globToRegExp);
  }

  /** A short hash of the key (never the key), computed once: names this key's removal in the fleet. */
  get fingerprint(): string {
    this.printed ??= createHash('sha256').update(this.input.key).digest('hex').slice(0, 16);
    return this.printed;
  }

  private printed: string | undefined;

  /** Whether the upstream last said this credential has no requests or tokens left (until their reset). */
  spentUntil(now: number): number {
    let until = 0;
    if (this.upstreamRequests !== null && this.upstreamRequests.left <= 0 && this.upstreamRequests.until > now)
      until = this.upstreamRequests.until;
    if (this.upstreamTokens !== null && this.upstreamTokens.left <= 0 && this.upstreamTokens.until > now)
      until = Math.max(until, this.upstreamTokens.until);
    return until;
  }

  /** What the fleet holds against it (a claim passed it over), kept here too. */
  mirror(mark: CredentialMark): void {
    switch (mark.kind) {
      case 'removed':
        this.removed ??= mark.reason;
        return;
      case 'cooling':
        this.coolUntil = Math.max(this.coolUntil, mark.until);
        return;
      case 'spent':
        if (this.upstreamRequests === null || this.upstreamRequests.until < mark.until)
          this.upstreamRequests = { left: 0, until: mark.until };
        return;
      default:
        mark satisfies never;
    }
  }

  serves(model: string): boolean {
    return this.models === null || this.models.some((r) => r.test(model));
  }

  private prune(now: number): void {
    const from = now - WINDOW_MS;
    while (this.uses.length > 0 && this.uses[0]! <= from) this.uses.shift();
    while (this.tokens.length > 0 && this.tokens[0]![0] <= from) this.tokens.shift();
  }

  requestsInWindow(now: number): number {
    this.prune(now);
    return this.uses.length;
  }

  tokensInWindow(now: number): number {
    this.prune(now);
    let sum = 0;
    for (const [, n] of this.tokens) sum += n;
    return sum;
  }

  remainingRequests(now: number): number | null {
    const own = this.input.rpm === undefined ? null : this.input.rpm - this.requestsInWindow(now);
    const up = this.upstreamRequests !== null && this.upstreamRequests.until > now ? this.upstreamRequests.left : null;
    return minOf(own, up);
  }

  remainingTokens(now: number): number | null {
    const own = this.input.tpm === undefined ? null : this.input.tpm - this.tokensInWindow(now);
    const up = this.upstreamTokens !== null && this.upstreamTokens.until > now ? this.upstreamTokens.left : null;
    return minOf(own, up);
  }

  hasHeadroom(now: number): boolean {
    if (this.removed !== null || this.coolUntil > now) return false;
    const r = this.remainingRequests(now);
    const t = this.remainingTokens(now);
    return (r === null || r > 0) && (t === null || t > 0);
  }

  /** What the upstream's own headers leave (the fleet's count decides the budgets): removed, cooling or told 0 left. */
  openUpstream(now: number): boolean {
    if (this.removed !== null || this.coolUntil > now) return false;
    const r = this.upstreamRequests !== null && this.upstreamRequests.until > now ? this.upstreamRequests.left : null;
    const t = this.upstreamTokens !== null && this.upstreamTokens.until > now ? this.upstreamTokens.left : null;
    return (r === null || r > 0) && (t === null || t > 0);
  }

  use(now: number): void {
    this.uses.push(now);
  }

  addTokens(n: number, now: number): void {
    if (n > 0) this.tokens.push([now, n]);
  }
}

export class CredentialPool {
  private readonly list: Credential[];
  private shared: { use: SharedCredentialUse; poolId: string } | null = null;

  constructor(inputs: readonly CredentialInput[]) {
    this.list = inputs.map((c) => new Credential(c));
  }

  /** Counts this pool's use for a fleet too (Redis): its budgets and cool-downs then hold across instances. */
  share(use: SharedCredentialUse, poolId: string): void {
    this.shared = { use, poolId };
  }

  get size(): number {
    return this.list.length;
  }

  /** Every key of the pool (for the secret scrubber). */
  keys(): string[] {
    return this.list.map((c) => c.input.key);
  }

  /**
   * A credential for one attempt at `model`, drawn by weight among those with headroom that
   * serve it and are not in `tried`; counted as used. Null when none is left.
   */
  async pick(model: string, now: number, tried: ReadonlySet<string>, random: () => number): Promise<PickedCredential | null> {
    if (this.shared === null) {
      const open = this.list.filter((c) => !tried.has(c.input.label) && c.serves(model) && c.hasHeadroom(now));
      if (open.length === 0) return null;
      const chosen = drawByWeight(open, random);
      chosen.use(now);
      return { label: chosen.input.label, key: chosen.input.key };
    }
    // A fleet: the weighted draw orders the candidates; Redis claims the first with room.
    const open = this.list.filter((c) => !tried.has(c.input.label) && c.serves(model) && c.openUpstream(now));
    const order: Credential[] = [];
    while (open.length > 0) {
      const next = drawByWeight(open, random);
      order.push(next);
      open.splice(open.indexOf(next), 1);
    }
    if (order.length === 0) return null;
    const candidates: CredentialCandidate[] = order.map((c) => ({
      label: c.input.label,
      fingerprint: c.fingerprint,
      rpm: c.input.rpm ?? null,
      tpm: c.input.tpm ?? null,
    }));
    const claim = await this.shared.use.claim(this.shared.poolId, candidates, now);
    for (const mark of claim.marks) this.find(mark.label)?.mirror(mark);
    const chosen = claim.label === null ? undefined : this.find(claim.label);
    if (chosen === undefined) return null;
    chosen.use(now);
    return { label: chosen.input.label, key: chosen.input.key };
  }

  /** Whether a credential other than those `tried` could serve `model` now. */
  hasOther(model: string, now: number, tried: ReadonlySet<string>): boolean {
    return this.list.some((c) => !tried.has(c.input.label) && c.serves(model) && c.hasHeadroom(now));
  }

  /** Whether any credential serves `model` at all (removed or cooling ones included). */
  serves(model: string): boolean {
    return this.list.some((c) => c.serves(model));
  }

  /** A 429 or quota error: the credential rests for what the upstream asked, bounded. */
  coolDown(label: string, ms: number | undefined, now: number): number {
    const c = this.find(label);
    const wait = Math.min(MAX_COOLDOWN_MS, Math.max(1000, ms ?? DEFAULT_COOLDOWN_MS));
    if (c !== undefined) c.coolUntil = Math.max(c.coolUntil, now + wait);
    // Best effort for the fleet: this instance rests it whatever Redis says.
    if (this.shared !== null) void this.shared.use.coolDown(this.shared.poolId, label, now + wait, now).catch(() => {});
    return wait;
  }

  /** A 401/403: the credential is taken out until the next reload (in a fleet, on every instance). */
  remove(label: string, reason: string): void {
    const c = this.find(label);
    if (c === undefined) return;
    const first = c.removed === null;
    c.removed = reason;
    if (first && this.shared !== null) void this.shared.use.remove(this.shared.poolId, label, c.fingerprint, reason).catch(() => {});
  }

  /**
   * The upstream's `x-ratelimit-remaining-requests/-tokens` (and their resets) on any answer.
   * In a fleet, headroom turning to 0 is written once (the others pass it over until the
   * reset); any other figure stays with this instance: no write per answer.
   */
  observeHeaders(label: string, headers: Record<string, string | string[] | undefined>, now: number): void {
    const c = this.find(label);
    if (c === undefined) return;
    const before = c.spentUntil(now);
    const req = headerNumber(headers['x-ratelimit-remaining-requests']);
    if (req !== undefined) c.upstreamRequests = { left: req, until: now + (resetMs(headers['x-ratelimit-reset-requests']) ?? WINDOW_MS) };
    const tok = headerNumber(headers['x-ratelimit-remaining-tokens']);
    if (tok !== undefined) c.upstreamTokens = { left: tok, until: now + (resetMs(headers['x-ratelimit-reset-tokens']) ?? WINDOW_MS) };
    const after = c.spentUntil(now);
    if (this.shared !== null && before === 0 && after > 0)
      void this.shared.use.spent(this.shared.poolId, label, after, now).catch(() => {});
  }

  /** Tokens an answer used, against the credential's tpm. */
  addTokens(label: string, tokens: number, now: number): void {
    this.find(label)?.addTokens(tokens, now);
    if (this.shared !== null && tokens > 0) void this.shared.use.addTokens(this.shared.poolId, label, tokens, now).catch(() => {});
  }

  status(now: number): CredentialStatus[] {
    return this.list.map((c) => {
      const cooling = c.removed === null && c.coolUntil > now;
      return {
        label: c.input.label,
        weight: c.input.weight,
        health: c.removed !== null ? 'removed' : cooling ? 'cooling_down' : 'ok',
        cooling_down_until: cooling ? new Date(c.coolUntil).toISOString() : null,
        removed_reason: c.removed,
        rpm: c.input.rpm ?? null,
        tpm: c.input.tpm ?? null,
        requests_last_minute: c.requestsInWindow(now),
        tokens_last_minute: c.tokensInWindow(now),
        remaining_requests: nonNegative(c.remainingRequests(now)),
        remaining_tokens: nonNegative(c.remainingTokens(now)),
        models: c.input.models ?? null,
      };
    });
  }

  private find(label: string): Credential | undefined {
    return this.list.find((c) => c.input.label === label);
  }
}

/** One of `list`, drawn with probability proportional to its weight. */
function drawByWeight(list: readonly Credential[], random: () => number): Credential {
  let total = 0;
  for (const c of list) total += c.input.weight;
  let target = random() * total;
  for (const c of list) {
    target -= c.input.weight;
    if (target < 0) return c;
  }
  return list[list.length - 1]!;
}

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

function nonNegative(n: number | null): number | null {
  return n === null ? null : Math.max(0, n);
}

function headerNumber(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}

/** OpenAI's reset durations: `1s`, `6m0s`, `120ms`, `1h2m3.5s`; bounded by a minute's window times five. */
function resetMs(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = false;
  for (const m of v.matchAll(re)) {
    matched = true;
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
  }
  return matched ? Math.min(total, MAX_COOLDOWN_MS) : undefined;
}

/** `gpt-4o*` → /^gpt-4o.*$/ ; only `*` is special. */
function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}
