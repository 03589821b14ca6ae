// How long an upstream asks to be left alone, in whole seconds (rounded up), from its
// response headers. Absent, blank or unreadable values give undefined.

type HeaderValue = string | string[] | undefined;

/** `Retry-After`: delay-seconds, or an HTTP date counted from `now` (0 once it has passed). */
export function parseRetryAfter(value: HeaderValue, now = Date.now()): number | undefined {
  const v = firstValue(value);
  if (v === undefined) return undefined;
  const seconds = Number(v);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** `retry-after-ms` (OpenAI's): milliseconds. */
export function parseRetryAfterMs(value: HeaderValue): number | undefined {
  const v = firstValue(value);
  if (v === undefined) return undefined;
  const ms = Number(v);
  return Number.isFinite(ms) && ms >= 0 ? Math.ceil(ms / 1000) : undefined;
}

function firstValue(value: HeaderValue): string | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  return v === undefined || v === '' ? undefined : v;
}
