// One call that checks an account's own key when it is stored (check-byok-key.ts), bounded
// in time as a whole (headers and body), with no redirect followed. What failed is named:
// the reason a client can act on, and a message for people — never the key.

/** Why a key was not taken. */
export type CheckReason =
  /** Not in the shape the provider's kind takes. */
  | 'shape'
  /** The provider refused it (401/403) without naming why. */
  | 'refused'
  /** A signature (SigV4, a service account's JWT) the provider's key does not verify. */
  | 'bad_signature'
  /** The provider does not know the key (its id, a service account). */
  | 'unknown_key'
  /** The provider says the credentials' time is over. */
  | 'expired'
  /** No answer within the bound. */
  | 'timeout'
  /** No connection. */
  | 'unreachable'
  /** Another answer than a success or a refusal. */
  | 'upstream_error';

export interface CheckFailure {
  reason: CheckReason;
  message: string;
}

/** The largest answer read (an error's body, a token); the rest is cancelled. */
const MAX_BODY_CHARS = 64 * 1024;

export interface CheckRequest {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * Calls `url`. A 2xx answer is null (the key is good), or what `success` makes of its body;
 * any other status is what `refusal` makes of it (given the body's text, at most 64 KiB):
 * a failure, or null when that refusal still proves the key authenticated.
 */
export async function fetchCheck(
  providerId: string,
  url: string,
  req: CheckRequest,
  timeoutMs: number,
  refusal: (status: number, res: Response, text: string) => CheckFailure | null,
  success?: (text: string) => CheckFailure | null,
): Promise<CheckFailure | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: req.method ?? 'GET',
      headers: req.headers,
      ...(req.body === undefined ? {} : { body: req.body }),
      signal,
      redirect: 'manual',
    });
    text = await readBounded(res);
  } catch {
    if (signal.aborted)
      return { reason: 'timeout', message: `provider "${providerId}" did not answer the check within ${formatSeconds(timeoutMs)}` };
    return { reason: 'unreachable', message: `provider "${providerId}" could not be reached for the check` };
  }
  if (res.status >= 200 && res.status < 300) return success?.(text) ?? null;
  return refusal(res.status, res, text);
}

async function readBounded(res: Response): Promise<string> {
  if (res.body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (text.length >= MAX_BODY_CHARS) {
      await res.body.cancel().catch(() => {});
      return text.slice(0, MAX_BODY_CHARS);
    }
  }
  return text + decoder.decode();
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
