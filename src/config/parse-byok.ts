import { ConfigError } from './config-error.ts';
import { at, checkKeys, optString, readMapping } from './read-fields.ts';
import { isSecretRef } from './secret-ref.ts';

/** `byok:` — accounts' own provider keys (docs/byok.md). */
export interface ByokConfig {
  /**
   * Where the master key is (`env:NAME` or `file:/path`, secret-ref.ts): the reference, never
   * the key. Null: BYOK is off, its routes answer 503 naming this setting.
   */
  masterKey: string | null;
  /** What a BYOK request is charged, in basis points of what it would have cost (100 = 1 %). */
  feeBasisPoints: number;
}

export const BYOK_DEFAULTS: ByokConfig = { masterKey: null, feeBasisPoints: 0 };

export function parseByok(value: unknown, path: string): ByokConfig {
  if (value === undefined || value === null) return BYOK_DEFAULTS;
  const fields = readMapping(value, path);
  checkKeys(fields, ['master_key', 'fee_percent'], path);
  const masterKey = optString(fields, 'master_key', path) ?? null;
  if (masterKey !== null && !isSecretRef(masterKey)) {
    // The value is not echoed: it may be the key itself, pasted where its reference belongs.
    throw new ConfigError(
      at(path, 'master_key'),
      'expected a reference, "env:NAME" or "file:/path" (the key itself never goes in the file)',
    );
  }
  return { masterKey, feeBasisPoints: readFeePercent(fields.fee_percent, at(path, 'fee_percent')) };
}

/** 0 to 100, at most two decimals: `2.5` → 250 basis points. */
function readFeePercent(value: unknown, path: string): number {
  if (value === undefined || value === null || value === '') return 0;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(text))
    throw new ConfigError(path, 'expected a percentage from 0 to 100 with at most two decimals (e.g. 5 or 2.5)');
  const [whole, frac = ''] = text.split('.');
  const bps = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  if (bps > 10_000) throw new ConfigError(path, 'expected a percentage from 0 to 100');
  return bps;
}
