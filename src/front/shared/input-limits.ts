// The bounds on what a client may send, besides the body size (server.body_limit_bytes).
// Each is documented in docs/security.md ("Limits and timeouts"); exceeding one is a 400
// naming the field and the limit. Fixed, not configurable: they sit far above anything a
// real client sends and only stop payloads built to exhaust the gateway.

/** Objects and arrays nested in a request body, the body itself counting as 1. */
export const MAX_JSON_DEPTH = 64;

/** Entries of `models` plus `fallbacks` (OpenRouter's `models` takes a handful). */
export const MAX_MODEL_CHOICES = 64;

/** Characters of one model id (`model`, an entry of `models` or `fallbacks`). */
export const MAX_MODEL_ID_CHARS = 256;

/** Characters of the end-user id (`user`, `safety_identifier`, messages' `metadata.user_id`). */
export const MAX_USER_CHARS = 256;

/** OpenAI's bounds on `metadata`: 16 pairs, keys of 64 characters, values of 512. */
export const MAX_METADATA_PAIRS = 16;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;

/** Characters kept of a client header stored in the generation record (HTTP-Referer, X-Title): longer ones are truncated. */
export const MAX_STORED_HEADER_CHARS = 512;
