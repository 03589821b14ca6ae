import type { Authenticator } from '../../auth/authenticate.ts';
import type { AccountService } from '../../billing/account-service.ts';
import { MemberService } from '../../billing/member-service.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { Stores } from '../../store/store-contract.ts';
import type { EngineParts } from '../open-stores.ts';
import { RecordsRetention } from '../records-retention.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { Log } from './service-options.ts';

// What accounts govern and the operator keeps: webhooks, members, how long records are kept.

/** Accounts' webhooks: emit() queues an event; start() begins the delivery loop off the request path. */
export function wireWebhooks(stores: Stores, config: () => GatewayConfig, now: () => number, log: Log): WebhookDispatcher {
  return new WebhookDispatcher({ stores, config: () => config().webhooks, now, log });
}

/** Accounts' members; a change drops the auth cache at once here, on the other instances of a fleet when the bus's message arrives. */
export function wireMembers(stores: Stores, auth: Authenticator, accountService: AccountService, webhooks: WebhookDispatcher): MemberService {
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
export function startRetention(stores: Pick<Stores, 'accounts'>, engine: Pick<EngineParts, 'pruneStep'>, config: () => GatewayConfig, now: () => number, log: Log): RecordsRetention {
  const retention = new RecordsRetention({ listAccounts: () => stores.accounts.listAccounts(), step: engine.pruneStep, config, now, log });
  retention.start(config().records.pruneIntervalMs);
  return retention;
}
