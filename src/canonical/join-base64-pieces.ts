// Streamed audio arrives as base64 pieces, and clients join them as text (the official openai
// client does: `data += piece`). That is right when the pieces are cuts of one payload, as
// OpenAI's are, and wrong when each piece was encoded on its own (Gemini's are): padding in
// the middle breaks the joined text. So the pieces of an `audio-delta` stream are always cuts
// of one payload; adapters whose upstream pads put its pieces through a Base64PieceJoiner.

/**
 * Re-cuts independently encoded base64 pieces into pieces of one payload: each piece it
 * returns holds whole 3-byte groups (no padding), and the bytes left over wait for the next
 * piece, or for `flush`. Pieces without padding, while nothing waits, pass through untouched.
 */
export class Base64PieceJoiner {
  private pending: Buffer | null = null;

  push(piece: string): string {
    if (this.pending === null && !piece.endsWith('=')) return piece;
    const bytes = this.pending === null ? Buffer.from(piece, 'base64') : Buffer.concat([this.pending, Buffer.from(piece, 'base64')]);
    const whole = bytes.length - (bytes.length % 3);
    this.pending = whole === bytes.length ? null : bytes.subarray(whole);
    return bytes.subarray(0, whole).toString('base64');
  }

  /** The bytes still waiting, as the payload's last piece (padded); '' when none. */
  flush(): string {
    const rest = this.pending;
    this.pending = null;
    return rest === null ? '' : rest.toString('base64');
  }
}

/**
 * Two pieces of base64 as one. Text joins as is (a payload cut anywhere); only padding in
 * the middle (pieces encoded on their own) makes the bytes go through a decode and an
 * encode, so the result is still one valid payload.
 */
export function appendBase64(head: string, tail: string): string {
  if (head.length === 0) return tail;
  if (!head.endsWith('=')) return head + tail;
  return Buffer.concat([Buffer.from(head, 'base64'), Buffer.from(tail, 'base64')]).toString('base64');
}
