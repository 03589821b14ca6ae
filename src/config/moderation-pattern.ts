import { RE2JS } from 're2js';

// Moderation rules' patterns run on RE2 (re2js, a pure-JS port): matching takes time linear
// in the input whatever the pattern, so a rule like `^(a+)+$` cannot stall the event loop.
// What RE2 cannot express in linear time (backreferences, lookahead, lookbehind) is refused
// when the config is loaded.

export interface ModerationPattern {
  /** The pattern as the config wrote it. */
  source: string;
  /** Compiled once, case-insensitive. */
  regex: RE2JS;
}

/** Compiles a rule's pattern; throws an Error saying why RE2 refuses it. */
export function compileModerationPattern(source: string): ModerationPattern {
  try {
    return { source, regex: RE2JS.compile(source, RE2JS.CASE_INSENSITIVE) };
  } catch (err) {
    const why = (err as Error).message.replace(/^error parsing regexp: /, '');
    throw new Error(`not a pattern the linear-time (RE2) engine accepts: ${why} (backreferences and lookaround are not supported)`, {
      cause: err,
    });
  }
}

/** Where `pattern` first matches in `text`, or -1. */
export function findPattern(pattern: ModerationPattern, text: string): number {
  const m = pattern.regex.matcher(text);
  return m.find() ? m.start() : -1;
}

/**
 * Does `pattern` match anywhere in `text`? The same answer as `findPattern(...) >= 0`, found
 * without a Matcher and without asking where: re2js then runs its DFA, ~10× faster than the
 * matcher's search (moderation reads every text of every request: issue 29, the tool-heavy
 * request, where the matcher's setup alone was ~3 µs for each of ~30 short texts).
 */
export function matchesPattern(pattern: ModerationPattern, text: string): boolean {
  return pattern.regex.test(text);
}

/**
 * Every pattern as one alternation (each in its own group, so inline flags stay scoped),
 * compiled once: a text it does not match matches none of them, so a clear text is read
 * once instead of once per pattern. Null when there is nothing to combine or RE2 refuses
 * the combination (e.g. a name given to two groups): callers then try each pattern.
 */
export function combineModerationPatterns(patterns: readonly ModerationPattern[]): ModerationPattern | null {
  if (patterns.length < 2) return null;
  const source = patterns.map((p) => `(?:${p.source})`).join('|');
  try {
    return { source, regex: RE2JS.compile(source, RE2JS.CASE_INSENSITIVE) };
  } catch {
    return null;
  }
}
