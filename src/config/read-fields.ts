// Small readers for the parsed config tree. Each takes the field's path so that every
// error names the field to fix. Messages describe what was found by type only: a value
// may be a secret.

import { formatAttos, priceToAttos, usdToNanos, formatNanos } from '../money/money.ts';
import { ConfigError } from './config-error.ts';
import { didYouMean } from './did-you-mean.ts';

export type Fields = Record<string, unknown>;

export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

export function readMapping(value: unknown, path: string): Fields {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(path, `expected a mapping, got ${describe(value)}`);
  }
  return value as Fields;
}

/** Unknown keys are errors: a misspelt optional field would otherwise be silently ignored. */
export function checkKeys(fields: Fields, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) {
      throw new ConfigError(
        at(path, key),
        `unknown field "${key}".${didYouMean(key, allowed)} Known fields${path === '' ? '' : ` of ${path}`}: ${allowed.join(', ')}`,
      );
    }
  }
}

export function readList(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new ConfigError(path, `expected a list, got ${describe(value)}`);
  return value;
}

export function readString(value: unknown, path: string): string {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new ConfigError(path, `expected a string, got ${describe(value)}`);
  if (value.trim() === '') throw new ConfigError(path, 'must not be empty');
  return value;
}

/** Absent, null and '' (an unset `${VAR}`) all read as absent. */
export function optString(fields: Fields, key: string, path: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === '') return undefined;
  return readString(value, at(path, key));
}

export function readInt(value: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  // Strings of digits are accepted because `${VAR}` references always produce strings.
  const n = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw new ConfigError(path, `expected ${range}, got ${typeof n === 'number' ? n : describe(value)}`);
  }
  return n;
}

export function optInt(fields: Fields, key: string, path: string, min: number, max?: number): number | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === '') return undefined;
  return readInt(value, at(path, key), min, max);
}

export function readBoolean(value: unknown, path: string): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigError(path, `expected true or false, got ${describe(value)}`);
}

export function optBoolean(fields: Fields, key: string, path: string): boolean | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === '') return undefined;
  return readBoolean(value, at(path, key));
}

export function readEnum<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    const got = typeof value === 'string' ? `"${value}"` : describe(value);
    const hint = typeof value === 'string' ? didYouMean(value, allowed) : '';
    throw new ConfigError(path, `expected one of ${allowed.join(', ')}, got ${got}${hint === '' ? '' : `.${hint}`}`);
  }
  return value as T;
}

export function optEnum<T extends string>(fields: Fields, key: string, allowed: readonly T[], path: string): T | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === '') return undefined;
  return readEnum(value, allowed, at(path, key));
}

export function optStringList(fields: Fields, key: string, path: string): string[] | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const p = at(path, key);
  return readList(value, p).map((item, i) => readString(item, at(p, i)));
}

/** A list of names each one of `allowed` (a ConfigError names the item and the names allowed). */
export function optEnumList<T extends string>(fields: Fields, key: string, allowed: readonly T[], path: string): T[] | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const p = at(path, key);
  return readList(value, p).map((item, i) => readEnum(item, allowed, at(p, i)));
}

export function optStringMap(fields: Fields, key: string, path: string): Record<string, string> | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  const p = at(path, key);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(readMapping(value, p))) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
      throw new ConfigError(at(p, k), `expected a string, got ${describe(v)}`);
    }
    out[k] = String(v);
  }
  return out;
}

/**
 * A USD-per-unit price as canonical decimal text. Strings are the documented form; a YAML
 * number is taken through its shortest decimal text (exact for any price a person writes)
 * rather than through float arithmetic.
 */
export function readPrice(value: unknown, path: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new ConfigError(path, `expected a price as a decimal string (USD per unit, e.g. "0.000002"), got ${describe(value)}`);
  }
  let attos: bigint;
  try {
    attos = priceToAttos(value);
  } catch (err) {
    throw new ConfigError(path, (err as Error).message);
  }
  if (attos < 0n) throw new ConfigError(path, 'a price must not be negative');
  return formatAttos(attos);
}

/** A USD amount with at most nano-dollar precision, as canonical decimal text. */
export function readUsd(value: unknown, path: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new ConfigError(path, `expected a USD amount as a decimal string (e.g. "10"), got ${describe(value)}`);
  }
  let nanos: bigint;
  try {
    nanos = usdToNanos(value);
  } catch (err) {
    throw new ConfigError(path, (err as Error).message);
  }
  if (nanos < 0n) throw new ConfigError(path, 'must not be negative');
  return formatNanos(nanos);
}
