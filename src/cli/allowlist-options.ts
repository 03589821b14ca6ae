import type { Command } from 'commander';
import { readAllowlistChange, readMaxInFlight, type AllowlistChange } from '../billing/allowlist-input.ts';
import type { Allowlist } from '../catalog/model-access.ts';

// The allowlist options of `accounts create|update` and `keys create|update`: the admin
// API's fields as flags, checked by the same code (billing/allowlist-input.ts).

export interface AllowlistOptions {
  allowedModels?: string;
  allowedProviders?: string;
  maxPrice?: string;
}

export function withAllowlistOptions(cmd: Command): Command {
  return cmd
    .option('--allowed-models <list|none>', 'comma-separated model ids and globs it may use (anthropic/*,openai/gpt-4.1); none: no list')
    .option('--allowed-providers <list|none>', 'comma-separated provider ids whose endpoints it may use; none: no list')
    .option(
      '--max-price <prices|none>',
      'the highest endpoint prices it may use, USD per million tokens: prompt=3,completion=15 (either or both); none: no maximum',
    );
}

/** The change the options ask for, or null when they name none (errors name the API's field). */
export function allowlistChangeOf(o: AllowlistOptions): AllowlistChange | null {
  const body: Record<string, unknown> = {};
  if (o.allowedModels !== undefined) body.allowed_models = listOrNone(o.allowedModels);
  if (o.allowedProviders !== undefined) body.allowed_providers = listOrNone(o.allowedProviders);
  if (o.maxPrice !== undefined) body.max_price = o.maxPrice === 'none' ? null : prices(o.maxPrice);
  return readAllowlistChange(body);
}

/** `--max-in-flight <n|none>`. */
export function maxInFlightOf(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  return readMaxInFlight(value === 'none' ? null : /^\d+$/.test(value) ? Number(value) : value);
}

/** How the CLI's tables show an allowlist. */
export function describeAllowlist(list: Allowlist | null): string {
  if (list === null) return '-';
  const parts: string[] = [];
  if (list.models !== undefined) parts.push(`models ${list.models.join(',') || '(none)'}`);
  if (list.providers !== undefined) parts.push(`providers ${list.providers.join(',') || '(none)'}`);
  if (list.maxPrice !== undefined)
    parts.push(
      `max ${Object.entries(list.maxPrice)
        .map(([k, v]) => `${k} $${v}/M`)
        .join(' ')}`,
    );
  return parts.join('; ');
}

function listOrNone(value: string): string[] | null {
  if (value === 'none') return null;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function prices(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    out[k ?? ''] = v ?? '';
  }
  return out;
}
