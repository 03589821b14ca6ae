import { MAX_METADATA_KEY_CHARS, MAX_METADATA_PAIRS, MAX_METADATA_VALUE_CHARS, MAX_USER_CHARS } from './input-limits.ts';
import { invalidValue, readString, readStringMap, type JsonObject } from './read-fields.ts';

// Client strings the gateway keeps or forwards as they are, bounded at decode time: the
// end-user id is stored in every generation record (refusals included), and `metadata`
// travels upstream and back in the Responses echo. Over a bound is a 400 naming it.

/** The end-user id under `key` (`user`, `safety_identifier`, `metadata.user_id`), at most MAX_USER_CHARS. */
export function readEndUser(obj: JsonObject, key: string, prefix?: string): string | undefined {
  const value = readString(obj, key, prefix);
  if (value !== undefined && value.length > MAX_USER_CHARS) {
    throw invalidValue(
      prefix === undefined ? key : `${prefix}.${key}`,
      `must be at most ${MAX_USER_CHARS} characters, got ${value.length}`,
    );
  }
  return value;
}

/** `metadata`: string values, within OpenAI's bounds (pairs, key and value lengths). */
export function readMetadata(obj: JsonObject, key: string): Record<string, string> | undefined {
  const map = readStringMap(obj, key);
  if (map === undefined) return undefined;
  let pairs = 0;
  for (const [k, v] of Object.entries(map)) {
    if (++pairs > MAX_METADATA_PAIRS) throw invalidValue(key, `may hold at most ${MAX_METADATA_PAIRS} pairs`);
    if (k.length > MAX_METADATA_KEY_CHARS)
      throw invalidValue(key, `keys must be at most ${MAX_METADATA_KEY_CHARS} characters, got one of ${k.length}`);
    if (v.length > MAX_METADATA_VALUE_CHARS) {
      throw invalidValue(`${key}.${k}`, `must be at most ${MAX_METADATA_VALUE_CHARS} characters, got ${v.length}`);
    }
  }
  return map;
}
