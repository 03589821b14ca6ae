import { generateApiKey, hashApiKey, labelApiKey } from '../../src/auth/api-key.ts';
import type { TestGateway } from './test-gateway.ts';

/** A JSON call with a bearer key: what the admin and report tests make. */
export async function call(method: string, url: string, key: string | null, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

/** An admin key on the gateway's own account (as `switchyard keys create --admin` makes). */
export async function createAdminKey(gw: TestGateway, name = 'ops'): Promise<{ key: string; hash: string; label: string }> {
  const { key, record } = await gw.services.accountService.createKey({ accountId: gw.accountId, name, admin: true });
  return { key, hash: record.hash, label: record.label };
}

/** Follows next_cursor from the first page to the last; `between` runs before each next page. */
export async function allPages(url: string, key: string, between: () => Promise<void> = async () => {}): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await call('GET', cursor === null ? url : `${url}${sep}cursor=${encodeURIComponent(cursor)}`, key);
    if (res.status !== 200) throw new Error(`page ${res.status}: ${JSON.stringify(res.json)}`);
    out.push(...res.json.data);
    cursor = res.json.next_cursor;
    if (cursor === null) return out;
    await between();
  }
}

/**
 * A key that has expired since it was made: written through the store, as the account
 * service (CLI, admin and key-management APIs) refuses to make a key already expired.
 */
export async function createExpiredKey(
  gw: TestGateway,
  accountId: string,
  name: string,
  expiresAt: string,
): Promise<{ key: string; hash: string }> {
  const key = generateApiKey();
  const hash = hashApiKey(key);
  await gw.services.stores.accounts.createKey({
    hash,
    accountId,
    name,
    label: labelApiKey(key),
    limitNanos: null,
    isManagement: false,
    expiresAt: new Date(expiresAt).toISOString(),
    now: new Date().toISOString(),
  });
  return { key, hash };
}
