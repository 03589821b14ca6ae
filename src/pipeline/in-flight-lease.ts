import type { AuthContext } from '../auth/authenticate.ts';
import { inFlightRefusal, type InFlightLimiter } from '../limits/in-flight-limiter.ts';
import { logSafely } from '../providers/http/scrub-secrets.ts';

/**
 * Takes a lease of the key's `max_in_flight` for this request: true when it holds one (to
 * give back with releaseLease), false when the key has no cap; throws the 429 when the key
 * is at its cap.
 */
export function acquireLease(limiter: InFlightLimiter | undefined, auth: AuthContext, generationId: string): boolean | Promise<boolean> {
  const max = auth.key.maxInFlight;
  // No cap (most keys): answered at once, without a promise.
  if (max == null || limiter === undefined) return false;
  return leaseWithin(limiter, auth, generationId, max);
}

async function leaseWithin(limiter: InFlightLimiter, auth: AuthContext, generationId: string, max: number): Promise<boolean> {
  if (!(await limiter.acquire(auth.key.hash, auth.account.id, max, generationId))) throw inFlightRefusal(max);
  return true;
}

/** Gives a `max_in_flight` lease back; a failure to (a fleet's Redis down) is logged by the limiter, the lease expires. */
export async function releaseLease(limiter: InFlightLimiter | undefined, auth: AuthContext, generationId: string): Promise<void> {
  try {
    await limiter?.release(auth.key.hash, auth.account.id, generationId);
  } catch (err) {
    logSafely(`a concurrent-request lease could not be released: ${(err as Error).message}`);
  }
}
