import type { Session } from '../app.tsx';
import { useApi } from '../use-api.ts';

/** The account as the session sees it. */
export function Settings({ session }: { session: Session }) {
  const key = useApi<{ data: { label: string } }>('/key');
  return (
    <dl class="card facts">
      <dt>Account</dt><dd>{session.account.name}</dd>
      <dt>Account id</dt><dd><code>{session.account.id}</code></dd>
      <dt>Signed in with</dt><dd><code>{key.data?.data.label ?? session.key_label}</code> (management key)</dd>
    </dl>
  );
}
