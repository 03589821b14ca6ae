import { useAllPages } from './use-api.ts';

/** The operator's accounts by id → name (GET /admin/accounts, every page); empty for an account's session. */
export function useAccountNames(enabled: boolean): Map<string, string> {
  const accounts = useAllPages<{ id: string; name: string }>(enabled ? '/admin/accounts?limit=200' : null);
  return new Map((accounts.data?.data ?? []).map((a) => [a.id, a.name]));
}

/** An account shown by its name, its id in the tooltip (the id itself until the names have loaded). */
export function AccountName({ id, names }: { id: string; names: Map<string, string> }) {
  const name = names.get(id);
  return name === undefined ? (
    <code>{id}</code>
  ) : (
    <span title={id} data-testid="account-name">
      {name}
    </span>
  );
}
