import { hash } from 'node:crypto';

// Long texts the moderation rules found clear, remembered by the SHA-256 of the account and
// the text (no text is kept), so a text sent again is not read again: an agent re-sends its
// system prompt, its ~20 tool definitions (Claude Code: ~30 KB) and every earlier turn on
// each turn, and the rules' linear-time engine (re2js, ~0.1 µs a character) spent ~3 ms a
// request re-reading them. The rules are deterministic, so a text they found clear is clear
// again: the verdict is the same, only its cost changes. Scoped by account, so how fast an
// answer comes cannot tell one account that another sent the same text. One memo per
// Moderator, i.e. per config generation: a reload with new rules starts empty.

/** Shorter texts are read again (hashing them would cost about what reading them does). */
export const MEMO_MIN_CHARS = 256;
/** Entries kept (~100 bytes each), least recently used dropped first. */
export const MEMO_MAX_ENTRIES = 8192;

export class ClearTextMemo {
  private readonly clear = new Map<string, true>();
  private readonly maxEntries: number;

  constructor(maxEntries = MEMO_MAX_ENTRIES) {
    this.maxEntries = maxEntries;
  }

  /**
   * The memo's key for `text` read for `scope`, or null when the text is too short to remember
   * or not well-formed UTF-16. The hash reads the text's UTF-8 bytes, and UTF-8 has no lone
   * surrogates: one is written as U+FFFD, so such a text would share its key with the text that
   * has U+FFFD in its place, which a rule may flag where it found the other clear. (A
   * one-byte string holds no surrogate: V8 answers isWellFormed for it without reading it.)
   */
  key(scope: string, text: string): string | null {
    return text.length < MEMO_MIN_CHARS || !text.isWellFormed() ? null : hash('sha256', `${scope}\n${text}`, 'base64');
  }

  /** Was this key found clear (and still remembered)? A hit becomes the most recently used. */
  has(key: string): boolean {
    if (!this.clear.has(key)) return false;
    this.clear.delete(key);
    this.clear.set(key, true);
    return true;
  }

  remember(key: string): void {
    if (this.clear.size >= this.maxEntries) this.clear.delete(this.clear.keys().next().value!);
    this.clear.set(key, true);
  }

  get size(): number {
    return this.clear.size;
  }
}
