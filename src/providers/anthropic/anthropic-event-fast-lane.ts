// The pass-through fast lane of an Anthropic Messages stream (docs/architecture.md,
// "Decisions"): most events of a streamed answer are text deltas. An event whose data is
// exactly `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`,
// the text holding no character JSON escapes, is read here by string comparison: its text
// is the characters between the quotes, as sent, with no JSON.parse of the event and (the
// part being `plain`) no JSON.stringify to re-encode it. Anything else takes the full decode.

const OPEN = '{"type":"content_block_delta","index":';
const MID = ',"delta":{"type":"text_delta","text":"';
const CLOSE = '"}}';
/** Block indexes the lane reads (longer digit runs take the full decode). */
const MAX_INDEX_DIGITS = 6;
/** A character a JSON string must escape: its presence sends the event to the full decode. */
// JSON strings escape the control characters: finding one is the point of the pattern.
// eslint-disable-next-line no-control-regex -- see above
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** Where `plainTextDeltaOf` puts the block index it read (one per decoder, reused). */
export interface BlockIndexOut {
  index: number;
}

/** The text of a plain text delta (its block index into `out`), or null: decode it in full. */
export function plainTextDeltaOf(data: string, out: BlockIndexOut): string | null {
  if (!data.startsWith(OPEN) || !data.endsWith(CLOSE)) return null;
  const mid = data.indexOf(MID, OPEN.length);
  const digits = mid - OPEN.length;
  if (digits < 1 || digits > MAX_INDEX_DIGITS) return null;
  let index = 0;
  for (let i = OPEN.length; i < mid; i++) {
    const d = data.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    index = index * 10 + d;
  }
  const from = mid + MID.length;
  const to = data.length - CLOSE.length;
  if (to < from) return null;
  const text = data.slice(from, to);
  if (NEEDS_ESCAPE.test(text)) return null;
  out.index = index;
  return text;
}
