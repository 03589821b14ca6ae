// The pass-through fast lane of an OpenAI chat stream (docs/architecture.md, "Decisions"):
// most events of a streamed answer are plain text chunks that differ only in their
// content. Once the decoder has parsed one chunk and learned the head every chunk of this
// stream repeats (id, object, created, model, fingerprint), an event that is exactly that
// head, a `content` string holding no character JSON escapes, and the fixed tail, is read
// here by string comparison: its text is the characters between the quotes, as sent, with
// no JSON.parse of the chunk and (the part being `plain`) no JSON.stringify to re-encode
// it. Anything else, however slightly different, takes the full decode, so the lane can
// only ever read what the full decode would have read.

/** The head of a chunk, through the opening of choice 0's delta, in the shape OpenAI sends. */
const HEAD_SHAPE =
  // eslint-disable-next-line no-control-regex -- JSON strings escape the control characters: the shape excludes them.
  /^\{"id":"[^"\\\u0000-\u001f]*","object":"chat\.completion\.chunk","created":\d+,"model":"[^"\\\u0000-\u001f]*"(?:,"service_tier":"[^"\\\u0000-\u001f]*")?(?:,"system_fingerprint":(?:"[^"\\\u0000-\u001f]*"|null))?,"choices":\[\{"index":0,"delta":$/;
const CHOICES_AT = '"choices":[{"index":0,"delta":';
const CONTENT_OPEN = '{"content":"';
/**
 * What may follow the content string, from its closing quote: the rest of choice 0, then
 * a null usage (servers asked for usage put it on every chunk) and OpenAI's `obfuscation`
 * padding, each optional; neither is read by the full decode either.
 */
const TAIL = /"\},"logprobs":null,"finish_reason":null\}\](?:,"usage":null)?(?:,"obfuscation":"[A-Za-z0-9_\-+/=]*")?\}$/y;
/** A character a JSON string must escape (a quote ends the string): the full decode then. */
// eslint-disable-next-line no-control-regex -- JSON strings escape the control characters: finding one is the point.
const NEEDS_ESCAPE = /[\\\u0000-\u001f]/;

/**
 * The head to recognize the following chunks by, from the data of a chunk the decoder
 * parsed in full (its first), or null when that chunk is not in the expected shape (the
 * lane then stays closed for this stream).
 */
export function learnChunkHead(data: string): string | null {
  const at = data.indexOf(CHOICES_AT);
  if (at < 0) return null;
  const head = data.slice(0, at + CHOICES_AT.length);
  return HEAD_SHAPE.test(head) ? head : null;
}

/**
 * The content text of `data` when it is exactly `head` + a plain content delta + a tail
 * (the text holding no character JSON escapes), else null (decode it in full).
 */
export function plainContentOf(data: string, head: string): string | null {
  if (!data.startsWith(head) || !data.startsWith(CONTENT_OPEN, head.length)) return null;
  const from = head.length + CONTENT_OPEN.length;
  // The first quote ends the string (an escaped one leaves a backslash before it: refused below).
  const to = data.indexOf('"', from);
  if (to < 0) return null;
  TAIL.lastIndex = to;
  if (!TAIL.test(data)) return null;
  const text = data.slice(from, to);
  return NEEDS_ESCAPE.test(text) ? null : text;
}
