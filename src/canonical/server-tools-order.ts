import type { CanonicalResponse } from './response.ts';
import type { ServerToolEntry } from './server-tools.ts';

/**
 * The answer's server tool entries that stand before content block `index` (for the last
 * index, content.length, those after every block): whole-answer encoders interleave them.
 */
export function serverToolsBefore(resp: CanonicalResponse, index: number): ServerToolEntry[] {
  const entries = resp.serverTools;
  if (entries === undefined) return [];
  return index >= resp.content.length ? entries.filter((e) => e.before >= index) : entries.filter((e) => e.before === index);
}
