import type { Authenticator } from '../../auth/authenticate.ts';
import type { AccountService } from '../../billing/account-service.ts';
import { MemberService } from '../../billing/member-service.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { EngineParts } from '../open-stores.ts';
import { RecordsRetention } from '../records-retention.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import { webhookSecretsFor } from '../webhooks/webhook-secret-key.ts';
import type { WebhookSecrets } from '../webhooks/webhook-secrets.ts';
import { GovernanceRetention } from '../governance-retention.ts';
import type { MasterKey } from '../../auth/byok-cipher.ts';
import type { Log } from './service-options.ts';

// What accounts govern and the operator keeps: webhooks, members, how long records are kept.

/** Accounts' webhooks: emit() queues an event; start() begins the delivery loop off the request path. */
export function wireWebhooks(
  stores: Stores,
  config: () => GatewayConfig,
  now: () => number,
  log: Log,
  secrets: WebhookSecrets,
): WebhookDispatcher {
  return new WebhookDispatcher({ stores, config: () => config().webhooks, now, log, secrets });
}

/**
 * Webhooks' signing secrets, sealed at rest (docs/security.md#webhook-secrets): under the BYOK
 * master key, else (SQLite) a key file in the data directory. Secrets still in clear (before
 * migration 24) are sealed here, before the first delivery.
 */
export async function wireWebhookSecrets(
  master: MasterKey | null,
  config: GatewayConfig,
  stores: Stores,
  log: Log,
): Promise<WebhookSecrets> {
  const secrets = webhookSecretsFor(master, stores.engine === 'sqlite' ? config.database.path : null);
  const resealed = await secrets.sealAtRest(stores);
  if (resealed > 0) log(`sealed ${resealed} webhook signing secret(s) at rest`);
  if (secrets.key === null && (await stores.webhooks.all()).some((w) => w.secretKey === null)) {
    log(
      'webhooks: signing secrets are in clear in the database and no key seals them: set byok.master_key (docs/security.md#webhook-secrets)',
    );
  }
  return secrets;
}

/** Deletes webhook deliveries, MCP tool calls and budget alerts past their retention, every `retention.prune_interval_minutes` (started here). */
export function startGovernanceRetention(stores: Stores, config: () => GatewayConfig, now: () => number, log: Log): GovernanceRetention {
  const retention = new GovernanceRetention({ stores, config: () => config().retention, now, log });
  retention.start(config().retention.pruneIntervalMs);
  return retention;
}

/** Accounts' members; a change drops the auth cache at once here, on the other instances of a fleet when the bus's message arrives. */
export function wireMembers(
  stores: Stores,
  auth: Authenticator,
  accountService: AccountService,
  webhooks: WebhookDispatcher,
): MemberService {
  return new MemberService(stores, {
    changed: (accountId) => {
      auth.invalidate();
      accountService.announce({ accountId });
    },
    keyChanged: (accountId, keyHash) => {
      auth.invalidate(keyHash);
      accountService.announce({ accountId, keyHash });
    },
    emit: (accountId, type, data) => webhooks.emit(accountId, type, data),
  });
}

/** Deletes generation records past their retention, every `records.prune_interval_minutes` (started here) and on demand. */
export function startRetention(
  stores: Pick<Stores, 'accounts'>,
  engine: Pick<EngineParts, 'pruneStep'>,
  config: () => GatewayConfig,
  now: () => number,
  log: Log,
): RecordsRetention {
  const retention = new RecordsRetention({ listAccounts: () => stores.accounts.listAccounts(), step: engine.pruneStep, config, now, log });
  retention.start(config().records.pruneIntervalMs);
  return retention;
}
