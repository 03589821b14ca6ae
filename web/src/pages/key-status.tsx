import type { KeyStatus } from '../api/types.ts';

/** A key's state as the API gives it (`status`): only an active key is green. */
export function StatusBadge({ status }: { status: KeyStatus }) {
  return (
    <span class={status === 'active' ? 'badge on' : 'badge off'} data-testid="key-status">
      {status}
    </span>
  );
}
