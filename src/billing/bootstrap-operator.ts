import type { AccountStore } from '../store/account-store.ts';
import type { AccountService } from './account-service.ts';

export interface BootstrapResult {
  accountId: string;
  key: string;
}

/**
 * On an empty database, creates the operator account with some credits and a starter
 * key, so a newcomer can call the gateway at once. Returns the key (to print once), or
 * null when accounts already exist.
 */
export function bootstrapOperator(
  accounts: AccountStore,
  service: AccountService,
  opts: { creditsUsd: string; defaultModel: string | null },
): BootstrapResult | null {
  if (accounts.countAccounts() > 0) return null;
  const account = service.createAccount({
    name: 'operator',
    type: 'organization',
    tier: 'enterprise',
    defaultModel: opts.defaultModel,
    creditsUsd: opts.creditsUsd,
  });
  const { key } = service.createKey({ accountId: account.id, name: 'starter' });
  return { accountId: account.id, key };
}
