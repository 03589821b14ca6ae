import type { AccountRepository } from '../store/store-contract.ts';
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
export async function bootstrapOperator(
  accounts: Pick<AccountRepository, 'countAccounts'>,
  service: AccountService,
  opts: { creditsUsd: string; defaultModel: string | null },
): Promise<BootstrapResult | null> {
  if ((await accounts.countAccounts()) > 0) return null;
  const account = await service.createAccount({
    name: 'operator',
    type: 'organization',
    tier: 'enterprise',
    defaultModel: opts.defaultModel,
    creditsUsd: opts.creditsUsd,
  });
  const { key } = await service.createKey({ accountId: account.id, name: 'starter' });
  return { accountId: account.id, key };
}
