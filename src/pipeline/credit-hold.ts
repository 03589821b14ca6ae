import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { PromptBound } from '../canonical/prompt-token-bound.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { CreditHolds } from '../billing/credit-holds.ts';
import { storageUnavailable, type SettlementQueue } from '../billing/settlement-queue.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { byokPlan, type AccountByok } from '../routing/byok-plan.ts';

/** The plan as held, and the amount held (nano-USD). */
export interface Held {
  plan: PlannedAttempt[];
  heldNanos: bigint;
}

/**
 * The request's credit hold: the plan's worst case, held atomically (402 when the account
 * or key has no room). With the account's own provider keys (`byok`), the plan becomes
 * theirs first (byokHold). An in-process hold is answered at once, without a promise.
 */
export function holdCredits(
  holds: CreditHolds,
  id: string,
  auth: AuthContext,
  req: CanonicalRequest,
  plan: PlannedAttempt[],
  byok: AccountByok | null,
): Held | Promise<Held> {
  if (byok !== null) return byokHold(holds, id, auth, req, plan, byok);
  const held = holds.reserve(id, auth, req, plan, new PromptBound(req));
  return typeof held === 'bigint' ? { plan, heldNanos: held } : held.then((heldNanos) => ({ plan, heldNanos }));
}

/**
 * The plan with the account's own keys (routing/byok-plan.ts), held at the BYOK fee. In mode
 * `prefer` the operator's fallbacks are priced in full: when the account cannot pay for
 * them, they are dropped and the account's keys alone carry the request.
 */
async function byokHold(
  holds: CreditHolds,
  id: string,
  auth: AuthContext,
  req: CanonicalRequest,
  drawn: PlannedAttempt[],
  byok: AccountByok,
): Promise<Held> {
  const { plan, fallbacks } = byokPlan(drawn, byok);
  if (plan.length === 0) {
    throw new GatewayError(
      'no_provider_available',
      'This model is served only by providers set to your own key (BYOK mode "only"), and that key cannot be used now (the gateway\'s operator is rotating its encryption); the gateway\'s own credentials are not used instead.',
      {
        metadata: { byok: true },
      },
    );
  }
  try {
    return { plan, heldNanos: await holdByok(holds, id, auth, req, plan) };
  } catch (err) {
    const own = plan.filter((a) => !fallbacks.has(a));
    if (fallbacks.size === 0 || own.length === 0 || !(err instanceof GatewayError) || err.code !== 'insufficient_quota') throw err;
    return { plan: own, heldNanos: await holdByok(holds, id, auth, req, own) };
  }
}

/**
 * The hold of a plan with BYOK attempts. A plan carried by the account's own keys alone
 * that can cost nothing (`byok.fee_percent` 0) is not refused for a balance of $0: the
 * operator is owed nothing (a negative balance is refused before the body, as ever).
 */
async function holdByok(holds: CreditHolds, id: string, auth: AuthContext, req: CanonicalRequest, plan: PlannedAttempt[]): Promise<bigint> {
  if (auth.account.balanceNanos >= 0n && plan.every((a) => a.endpoint.provider.byok !== undefined && a.endpoint.compiledPricing.free))
    return 0n;
  return holds.reserve(id, auth, req, plan, new PromptBound(req));
}

/**
 * The request's hold row could not be written (the caller awaited its commit: group commit,
 * one transaction for every request admitted meanwhile, so that every request an upstream may
 * bill has a durable row and a crash leaves it to be recorded as interrupted at the next
 * start): the hold is released and the request refused (503, nothing sent). The caller awaits
 * the row itself, so a committed row costs no function's promise around it (issue 29).
 */
export async function holdNotWritten(
  settlements: SettlementQueue,
  holds: CreditHolds,
  id: string,
  auth: AuthContext,
  heldNanos: bigint,
): Promise<never> {
  settlements.forgetHold(id);
  await holds.finish(id, auth.account.id, auth.key.hash, heldNanos, 0n);
  throw storageUnavailable();
}
