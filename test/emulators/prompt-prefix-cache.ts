// A provider's automatic prompt cache, as far as billing sees it: a request whose messages
// begin with a prefix this upstream has seen before (ending at a message boundary) reads that
// prefix from the cache. Tokens are counted like the emulator's default: about four
// characters per token of the prefix's JSON.

export class PromptPrefixCache {
  private readonly seen = new Set<string>();
  /** Cached tokens reported so far, by this upstream. */
  totalCachedTokens = 0;

  /** The cached tokens of this request's longest known prefix (0 when none); remembers all its prefixes. */
  read(messages: readonly unknown[]): number {
    let cached = 0;
    const prefixes: string[] = [];
    for (let i = 1; i <= messages.length; i++) prefixes.push(JSON.stringify(messages.slice(0, i)));
    // The whole prompt is never a hit of its own: a repeated prompt still ends in new tokens.
    for (let i = prefixes.length - 2; i >= 0; i--) {
      if (this.seen.has(prefixes[i]!)) {
        cached = Math.ceil(prefixes[i]!.length / 4);
        break;
      }
    }
    for (const p of prefixes) this.seen.add(p);
    this.totalCachedTokens += cached;
    return cached;
  }
}
