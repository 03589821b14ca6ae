import type { Catalog } from '../../catalog/catalog.ts';
import type { GatewayConfig } from '../../config/types.ts';
import { SecretScrubber } from './scrub-secrets.ts';

/**
 * The scrubber for this gateway, built once at boot: every upstream credential it was
 * configured with (providers' keys, from the file or the environment, and the values of
 * their extra headers; the moderation upstream's key).
 */
export function scrubberForConfig(config: GatewayConfig, catalog: Catalog): SecretScrubber {
  const secrets: string[] = [];
  const addProvider = (p: { apiKey?: string | undefined; headers?: Record<string, string> | undefined }): void => {
    if (p.apiKey !== undefined) secrets.push(p.apiKey);
    for (const value of Object.values(p.headers ?? {})) secrets.push(value);
  };
  for (const p of config.providers) addProvider(p);
  for (const p of catalog.providers.values()) addProvider(p);
  const moderationKey = config.moderation.upstream?.apiKey;
  if (moderationKey !== undefined) secrets.push(moderationKey);
  return new SecretScrubber(secrets);
}
