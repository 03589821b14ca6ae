import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { PlannedAttempt } from '../routing/attempt.ts';
import type { ReservationStore } from '../store/reservation-store.ts';
import { formatNanos, type Nanos } from './money.ts';
import { affordableOutputTokens, maxOutputTokens, paddedPrompt, worstCaseCost } from './worst-case-cost.ts';

/**
 * Reserve, then settle: before the upstream call the worst case is held against the
 * account balance and the key's limit, atomically; settlement (ledger-store) charges the
 * actual cost and releases the hold. Holds that outlive their request (a crash) are
 * released by `releaseStale`, at start-up and periodically.
 */
export class CreditReservations {
  private readonly store: ReservationStore;
  private readonly holdMs: number;
  private readonly now: () => number;

  constructor(store: ReservationStore, opts: { holdMs: number; now?: () => number }) {
    this.store = store;
    this.holdMs = opts.holdMs;
    this.now = opts.now ?? Date.now;
  }

  /** Holds the request's worst-case cost; returns the amount held, or throws 402 (or 401). */
  reserve(id: string, auth: AuthContext, req: CanonicalRequest, plan: readonly PlannedAttempt[], promptTokens: number): Nanos {
    const amount = worstCaseCost(req, plan, promptTokens);
    const now = this.now();
    const outcome = this.store.reserve({
      id,
      accountId: auth.account.id,
      keyHash: auth.key.hash,
      amountNanos: amount,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.holdMs).toISOString(),
    }, now);
    if (outcome.ok) return amount;
    if (outcome.reason === 'inactive') {
      throw new GatewayError('authentication_required', 'Authentication required: this API key or its account is no longer active.');
    }
    throw insufficient(outcome.reason, outcome.availableNanos, amount, req, plan, promptTokens);
  }

  /** Releases holds whose requests can no longer settle. `all` at the start of the only process. */
  releaseStale(all: boolean): number {
    const nowIso = new Date(this.now()).toISOString();
    return this.store.releaseStale(all ? null : nowIso, nowIso).length;
  }
}

function insufficient(
  reason: 'balance' | 'key_limit',
  available: Nanos,
  needed: Nanos,
  req: CanonicalRequest,
  plan: readonly PlannedAttempt[],
  promptTokens: number,
): GatewayError {
  const whose = reason === 'balance' ? 'the account balance' : "this key's credit limit";
  const first = plan[0]!.endpoint;
  const requested = maxOutputTokens(req, first, paddedPrompt(promptTokens));
  const affordable = Math.min(requested, affordableOutputTokens(req, first, promptTokens, available));
  const message = available <= 0n
    ? `Insufficient credits: ${whose} is used up. Add credits to continue.`
    : `Insufficient credits: this request may cost up to $${formatNanos(needed)} but ${whose} has $${formatNanos(available)} left. ` +
      `You requested up to ${requested} output tokens, but can only afford ${affordable}; lower max_tokens or add credits.`;
  return new GatewayError('insufficient_quota', message, {
    metadata: {
      reason,
      available: formatNanos(available),
      required: formatNanos(needed),
      requested_output_tokens: requested,
      affordable_output_tokens: affordable,
    },
  });
}
