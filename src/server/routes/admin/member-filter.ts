import type { AuthContext } from '../../../auth/authenticate.ts';
import { ownKeysOnly } from '../../../auth/roles.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import type { MemberRecord } from '../../../store/member-store.ts';
import type { Query } from './admin-common.ts';
import type { Stores } from '../../../store/store-contract.ts';

/** What member-filter.ts uses of the services (handed out by build-app.ts). */
export interface MemberFilterDeps {
  stores: Pick<Stores, 'accounts' | 'members'>;
}

// `?member=` on the usage and activity reports: only the keys a member holds now (a key moved
// to another member takes its history with it). A caller whose role is `member` sees their
// own keys only: the filter is theirs whatever the query says (another member's is a 403).

export const MEMBER_QUERY = { member: 'A member id (mem_...): only the keys this member holds.' };

/** The member filter of a management route: the caller's account's member, or the caller themself when their role is `member`. */
export async function accountMemberFilter(deps: MemberFilterDeps, auth: AuthContext, q: Query): Promise<string | undefined> {
  const asked = q.member === undefined || q.member === '' ? undefined : q.member;
  if (ownKeysOnly(auth)) {
    const own = auth.member?.id;
    if (own === undefined || (asked !== undefined && asked !== own))
      throw new GatewayError('forbidden', 'A member sees their own usage and activity only.');
    return own;
  }
  if (asked === undefined) return undefined;
  const m = await deps.stores.members.get(asked);
  if (m === undefined || m.accountId !== auth.account.id) throw new GatewayError('not_found', `No member "${asked}" in this account.`);
  return m.id;
}

/** The member filter of an admin route: any account's member; with `account=`, it must be theirs. */
export async function adminMemberFilter(deps: MemberFilterDeps, q: Query): Promise<MemberRecord | undefined> {
  if (q.member === undefined || q.member === '') return undefined;
  const m = await deps.stores.members.get(q.member);
  if (m === undefined) throw new GatewayError('not_found', `No member "${q.member}".`);
  if (q.account !== undefined && q.account !== '' && q.account !== m.accountId) {
    throw new GatewayError('invalid_parameter', `"member": ${m.id} is not a member of account ${q.account}.`, { param: 'member' });
  }
  return m;
}

/** A key a report is filtered by: the caller's account's, and their own when their role is `member`. */
export async function checkReportKey(deps: MemberFilterDeps, auth: AuthContext, hash: string | undefined): Promise<void> {
  if (hash === undefined || hash === '') return;
  const key = await deps.stores.accounts.getKey(hash);
  if (key === undefined || key.accountId !== auth.account.id || (ownKeysOnly(auth) && key.memberId !== auth.member?.id)) {
    throw new GatewayError('not_found', `No key with hash "${hash}".`);
  }
}
