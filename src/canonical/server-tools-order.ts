import type { CanonicalResponse } from './response.ts';
import type { ServerToolEntry } from './server-tools.ts';

const NONE: readonly ServerToolEntry[] = Object.freeze([]);

/**
 * The answer's server tool entries that stand before content block `index` (for the last
 * index, content.length, those after every block): whole-answer encoders interleave them.
 */
export function serverToolsBefore(resp: CanonicalResponse, index: number): readonly ServerToolEntry[] {
  const entries = resp.serverTools;
  // Almost every answer: no entries, and no list made for each block.
  if (entries === undefined) return NONE;
  return index >= resp.content.length ? entries.filter((e) => e.before >= index) : entries.filter((e) => e.before === index);
}
