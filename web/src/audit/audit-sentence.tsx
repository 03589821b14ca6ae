import type { ComponentChildren } from 'preact';
import { href, navigate } from '../router.ts';
import { AccountName } from '../account-names.tsx';
import { usd } from '../format.ts';

import type { AuditEntry } from '../api/types.ts';

export type { AuditEntry };

type Details = Record<string, unknown>;

function text(d: Details, name: string): string | undefined {
  const v = d[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A link to a page of the operator's dashboard. */
function PageLink({ route, children }: { route: string; children: ComponentChildren }) {
  return (
    <a
      href={href(route)}
      onClick={(e) => {
        e.preventDefault();
        navigate(route);
      }}
    >
      {children}
    </a>
  );
}

/**
 * The entry as a sentence: who did what to which object, objects linked to the page that
 * lists them. An action this view does not know yet reads "<who> did <action> on <target>",
 * so a new audited action is never hidden; the raw details stay one click away.
 */
export function AuditSentence({ e, names }: { e: AuditEntry; names: Map<string, string> }) {
  const d: Details = e.details ?? {};
  const who = <strong>{e.actor.label}</strong>;
  const account = (id: string | undefined) =>
    id === undefined ? (
      <>an account</>
    ) : (
      <PageLink route="">
        <AccountName id={id} names={names} />
      </PageLink>
    );
  const key = (
    <PageLink route="keys">
      key <q>{text(d, 'name') ?? text(d, 'label') ?? e.target ?? '?'}</q>
    </PageLink>
  );
  const keyAccount = text(d, 'account_id');
  const ofAccount = keyAccount === undefined ? null : <> of {account(keyAccount)}</>;
  const target = e.target ?? undefined;
  switch (e.action) {
    case 'account.create':
      return (
        <>
          {who} created the account {account(target)}
          {text(d, 'tier') === undefined ? '' : ` on tier ${text(d, 'tier')}`}
          {text(d, 'credits') === undefined || text(d, 'credits') === '0' ? '' : ` with ${usd(text(d, 'credits'))} of credits`}
        </>
      );
    case 'account.update':
      return (
        <>
          {who} changed the account {account(target)}: {changed(d)}
        </>
      );
    case 'account.deactivate':
      return (
        <>
          {who} deactivated the account {account(target)}
        </>
      );
    case 'account.reactivate':
      return (
        <>
          {who} reactivated the account {account(target)}
        </>
      );
    case 'credits.grant':
      return (
        <>
          {who} granted {usd(text(d, 'amount'))} of credits to {account(target)}
          {reason(d)}
        </>
      );
    case 'credits.adjust':
      return (
        <>
          {who} adjusted the credits of {account(target)} by {usd(text(d, 'amount'))}
          {reason(d)}
        </>
      );
    case 'key.create':
      return (
        <>
          {who} created {key}
          {ofAccount}
        </>
      );
    case 'key.delete':
      return (
        <>
          {who} deleted {key}
          {ofAccount}
        </>
      );
    case 'key.disable':
      return (
        <>
          {who} disabled {key}
          {ofAccount}
        </>
      );
    case 'key.enable':
      return (
        <>
          {who} enabled {key}
          {ofAccount}
        </>
      );
    case 'key.rename':
      return (
        <>
          {who} renamed a key{ofAccount} to{' '}
          <PageLink route="keys">
            <q>{text(d, 'name')}</q>
          </PageLink>
        </>
      );
    case 'key.limit': {
      const limit = text(d, 'limit');
      return (
        <>
          {who}{' '}
          {limit === undefined ? (
            'removed the credit limit of'
          ) : (
            <>
              set a credit limit of {usd(limit)}
              {text(d, 'limit_reset') === undefined ? '' : ` (${text(d, 'limit_reset')})`} on
            </>
          )}{' '}
          {key}
          {ofAccount}
        </>
      );
    }
    case 'webhook.create':
      return (
        <>
          {who} added a webhook to <code class="wrap">{text(d, 'url') ?? target}</code>
          {ofAccount}
        </>
      );
    case 'webhook.delete':
      return (
        <>
          {who} removed the webhook to <code class="wrap">{text(d, 'url') ?? target}</code>
          {ofAccount}
        </>
      );
    case 'generations.prune':
      return (
        <>
          {who} pruned {typeof d.deleted === 'number' ? d.deleted : 0} generation records past their retention (
          <PageLink route="activity">Activity</PageLink>)
        </>
      );
    default:
      return (
        <>
          {who} did <code>{e.action}</code>
          {target === undefined ? (
            ''
          ) : (
            <>
              {' '}
              on <code class="wrap">{target}</code>
            </>
          )}
        </>
      );
  }
}

function reason(d: Details): string {
  const r = text(d, 'reason');
  return r === undefined ? '' : ` (${r})`;
}

/** "name → Acme, tier → pro" from an update's details. */
function changed(d: Details): string {
  const parts = Object.entries(d)
    .filter(([k]) => k !== 'account_id')
    .map(([k, v]) => `${k.replace(/_/g, ' ')} → ${v === null ? 'none' : typeof v === 'string' ? v : JSON.stringify(v)}`);
  return parts.length === 0 ? 'no field' : parts.join(', ');
}
