import { Authenticator } from '../../auth/authenticate.ts';
import type { AccountService } from '../../billing/account-service.ts';
import type { CreditHolds } from '../../billing/credit-holds.ts';
import type { SqliteWriter } from '../open-stores.ts';
import type { AccountRepository, Stores } from '../../store/store-contract.ts';
import { SessionStore, isSessionToken } from '../dashboard/session-store.ts';
import type { FleetServices } from '../fleet-services.ts';

/** Who a request is: keys (and their cache), the dashboard's sessions. */
export interface AccessGroup {
  auth: Authenticator;
  /** Dashboard sessions (a management or admin key exchanged for a cookie). */
  sessions: SessionStore;
}

export function wireAccess(
  accounts: AccountRepository,
  stores: Pick<Stores, 'sessions' | 'members'>,
  now: (() => number) | undefined,
): AccessGroup {
  const sessions = new SessionStore(stores.sessions);
  const auth = new Authenticator(accounts, {
    sessions: { isSessionToken, keyHashOf: (t) => sessions.keyHashOf(t) },
    members: stores.members,
    ...(now === undefined ? {} : { secretClock: now }),
  });
  return { auth, sessions };
}

/**
 * Account and key changes drop the caches (keys, credit snapshots) at once when made here,
 * and within the writer's change check (100 ms) when another process (the operator CLI)
 * made them; in a fleet, through the Redis invalidation bus. Returns the bus's unsubscribe.
 */
export function dropCachesOnChange(
  auth: Authenticator,
  reservations: CreditHolds,
  accountService: AccountService,
  writer: SqliteWriter | null,
  fleet: FleetServices | null,
): (() => void) | undefined {
  const dropCaches = (): void => {
    reservations.forget();
    auth.invalidate();
  };
  if (fleet === null) accountService.onChange(dropCaches);
  // A fleet: the change is published (after the shared credit snapshot is forgotten), and
  // every instance, this one included, drops its auth cache when the message arrives.
  else accountService.onChange((change) => void reservations.forget(change.keyHash, change.accountId));
  writer?.onExternalChange(dropCaches);
  return fleet?.bus.subscribe((m) => auth.invalidate(m.kind === 'key' ? m.keyHash : undefined));
}
