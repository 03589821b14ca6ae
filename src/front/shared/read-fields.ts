import { GatewayError, invalidParameter } from '../../errors/gateway-error.ts';

// Typed readers for request bodies, shared by every dialect. Each returns undefined when
// the field is absent or null (clients send `null` for "not set"), the value when it is
// well formed, and throws a GatewayError naming the field otherwise. `prefix` is the path
// of the object being read (e.g. `provider.max_price`); the full path is only built when
// an error is thrown, so the happy path allocates no strings.

export type JsonObject = Record<string, unknown>;

export interface NumberRange {
  min?: number;
  max?: number;
  /** The minimum itself is not allowed: (min, max]. */
  minExclusive?: boolean;
  integer?: boolean;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a client sent, in JSON terms, for "expected X, got Y" messages. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function fieldPath(prefix: string | undefined, key: string): string {
  return prefix === undefined ? key : `${prefix}.${key}`;
}

export function missingParameter(param: string, what = 'is required'): GatewayError {
  return new GatewayError('missing_parameter', `Missing required parameter '${param}': it ${what}.`, { param });
}

export function invalidType(param: string, expected: string, value: unknown): GatewayError {
  return invalidParameter(param, `Invalid type for '${param}': expected ${expected}, got ${describeType(value)}.`);
}

export function invalidValue(param: string, rule: string): GatewayError {
  return invalidParameter(param, `Invalid value for '${param}': ${rule}.`);
}

/** A problem inside the conversation (`messages`, `input`, `system`) is an `invalid_message`. */
export function messageError(param: string, rule: string): GatewayError {
  return new GatewayError('invalid_message', `Invalid '${param}': ${rule}.`, { param });
}

export function missingField(param: string): GatewayError {
  return new GatewayError('invalid_message', `Missing required field '${param}'.`, { param });
}

function describeRange(range: NumberRange): string {
  const kind = range.integer ? 'an integer' : 'a number';
  const { min, max } = range;
  if (min !== undefined && max !== undefined) {
    return range.minExclusive ? `${kind} greater than ${min} and at most ${max}` : `${kind} from ${min} to ${max}`;
  }
  if (min !== undefined) return range.minExclusive ? `${kind} greater than ${min}` : `${kind} of at least ${min}`;
  if (max !== undefined) return `${kind} of at most ${max}`;
  return kind;
}

/** Checks a number already read; the path (`prefix.key`) is built only for the error. */
export function checkNumber(value: unknown, range: NumberRange, key: string, prefix?: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidType(fieldPath(prefix, key), describeRange(range), value);
  const { min, max } = range;
  if (
    (range.integer === true && !Number.isInteger(value)) ||
    (min !== undefined && (range.minExclusive === true ? value <= min : value < min)) ||
    (max !== undefined && value > max)
  ) {
    throw invalidValue(fieldPath(prefix, key), `must be ${describeRange(range)}, got ${value}`);
  }
  return value;
}

export function readNumber(obj: JsonObject, key: string, range: NumberRange, prefix?: string): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return checkNumber(value, range, key, prefix);
}

export function readString(obj: JsonObject, key: string, prefix?: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidType(fieldPath(prefix, key), 'a string', value);
  return value;
}

export function requireString(obj: JsonObject, key: string, prefix?: string): string {
  const value = obj[key];
  if (value === undefined || value === null) throw missingParameter(fieldPath(prefix, key));
  if (typeof value !== 'string') throw invalidType(fieldPath(prefix, key), 'a string', value);
  return value;
}

export function readBoolean(obj: JsonObject, key: string, prefix?: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidType(fieldPath(prefix, key), 'a boolean', value);
  return value;
}

export function readObject(obj: JsonObject, key: string, prefix?: string): JsonObject | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalidType(fieldPath(prefix, key), 'an object', value);
  return value;
}

export function readStringArray(obj: JsonObject, key: string, prefix?: string): string[] | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidType(fieldPath(prefix, key), 'an array of strings', value);
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') throw invalidType(`${fieldPath(prefix, key)}[${i}]`, 'a string', value[i]);
  }
  return value as string[];
}

/** A string restricted to `allowed` (a module-level set, built once). */
export function readEnum<T extends string>(obj: JsonObject, key: string, allowed: ReadonlySet<T>, prefix?: string): T | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !allowed.has(value as T)) {
    throw invalidValue(fieldPath(prefix, key), `must be one of ${listValues(allowed)}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** An array of strings, each restricted to `allowed` (a module-level set, built once). */
export function readEnumArray<T extends string>(obj: JsonObject, key: string, allowed: ReadonlySet<T>, prefix?: string): T[] | undefined {
  const value = readStringArray(obj, key, prefix);
  if (value === undefined) return undefined;
  for (let i = 0; i < value.length; i++) {
    if (!allowed.has(value[i] as T)) {
      throw invalidValue(`${fieldPath(prefix, key)}[${i}]`, `must be one of ${listValues(allowed)}, got ${JSON.stringify(value[i])}`);
    }
  }
  return value as T[];
}

export function listValues(allowed: Iterable<string>): string {
  return Array.from(allowed, (v) => `'${v}'`).join(', ');
}

/** A JSON object whose values are all strings (`metadata`). */
export function readStringMap(obj: JsonObject, key: string, prefix?: string): Record<string, string> | undefined {
  const value = readObject(obj, key, prefix);
  if (value === undefined) return undefined;
  for (const k in value) {
    if (typeof value[k] !== 'string') throw invalidType(`${fieldPath(prefix, key)}.${k}`, 'a string', value[k]);
  }
  return value as Record<string, string>;
}

/** The fields of `keys` that are set, untouched: passed through to providers that accept them. */
export function pickFields(obj: JsonObject, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = obj[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}
