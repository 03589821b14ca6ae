import { invalidType } from './read-fields.ts';

// `stop` of the OpenAI dialects: one string or an array of strings, any length.

export function decodeStop(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return [raw];
  if (!Array.isArray(raw)) throw invalidType('stop', 'a string or an array of strings', raw);
  for (let i = 0; i < raw.length; i++) {
    if (typeof raw[i] !== 'string') throw invalidType(`stop[${i}]`, 'a string', raw[i]);
  }
  // An empty list sets nothing; some providers reject `stop: []`.
  return raw.length === 0 ? undefined : (raw as string[]);
}
