import type { ReasoningPart, RedactedReasoningPart } from '../../canonical/request.ts';

// A reasoning item's `encrypted_content` is the one field clients carry back untouched
// (Codex replays exactly `summary` and `encrypted_content`), so it holds whatever opaque
// data a provider needs to see again:
// - a reasoning part's signature (Anthropic's thinking signature, Gemini's thought
//   signature), as is;
// - redacted reasoning (Anthropic's `redacted_thinking` data), behind a prefix that no
//   signature can start with: signatures are base64, which has no ':'.
// A gateway is stateless, so this field, not a stored id, is what makes a replayed
// reasoning item useful to the provider that issued it.

const REDACTED_PREFIX = 'redacted_thinking:';

/** Redacted reasoning's opaque data → `encrypted_content`. */
export function redactedToEncryptedContent(data: string): string {
  return REDACTED_PREFIX + data;
}

/** A replayed reasoning item → the canonical part it came from; null when it carries nothing. */
export function reasoningFromItem(text: string, encrypted: string | undefined): ReasoningPart | RedactedReasoningPart | null {
  if (encrypted !== undefined && encrypted.startsWith(REDACTED_PREFIX)) {
    return { type: 'redacted-reasoning', data: encrypted.slice(REDACTED_PREFIX.length) };
  }
  if (encrypted !== undefined && encrypted.length > 0) return { type: 'reasoning', text, signature: encrypted };
  return text.length > 0 ? { type: 'reasoning', text } : null;
}
