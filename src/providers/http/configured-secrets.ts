import type { Catalog } from '../../catalog/catalog.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { SecretScrubber } from './scrub-secrets.ts';

/**
 * The scrubber for this gateway, built once at boot: every upstream credential it was
 * configured with (providers' keys and their pools' keys, from the file or the environment, and the values of
 * their extra headers; the moderation upstream's key).
 */
export function scrubberForConfig(config: GatewayConfig, catalog: Catalog): SecretScrubber {
  const secrets: string[] = [];
  const addProvider = (p: {
    apiKey?: string | undefined;
    apiKeys?: Array<{ key: string }> | undefined;
    credentials?: { keys(): string[] } | undefined;
    headers?: Record<string, string> | undefined;
  }): void => {
    if (p.apiKey !== undefined) secrets.push(p.apiKey);
    // Every key of a credential pool, whichever an attempt carries.
    for (const c of p.apiKeys ?? []) secrets.push(c.key);
    if (p.credentials !== undefined) secrets.push(...p.credentials.keys());
    for (const value of Object.values(p.headers ?? {})) secrets.push(value);
  };
  for (const p of config.providers) addProvider(p);
  for (const p of catalog.providers.values()) addProvider(p);
  const moderationKey = config.moderation.upstream?.apiKey;
  if (moderationKey !== undefined) secrets.push(moderationKey);
  // The web search backend's key (`search.key`).
  const searchKey = config.search?.key;
  if (searchKey !== undefined) secrets.push(searchKey);
  return new SecretScrubber(secrets);
}
