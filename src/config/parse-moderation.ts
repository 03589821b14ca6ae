import { compileModerationPattern } from './moderation-pattern.ts';
import { ConfigError } from './config-error.ts';
import { at, checkKeys, optInt, optString, readList, readMapping, readString } from './read-fields.ts';
import type { ModerationConfig } from './types.ts';

/** The most input characters moderation reads by default (see docs/security.md). */
export const DEFAULT_MODERATION_MAX_INPUT_CHARS = 1_000_000;

/**
 * `moderation:` — rules (a reason name and regular expressions, matched case-insensitively
 * by the linear-time RE2 engine, compiled here once), an optional OpenAI-compatible
 * moderation upstream, and `max_input_chars`, the most input moderation reads. Applies to
 * endpoints marked `moderated: true` (per provider or per endpoint).
 */
export function parseModeration(value: unknown, path: string): ModerationConfig {
  if (value === undefined || value === null) return { rules: [], upstream: null, maxInputChars: DEFAULT_MODERATION_MAX_INPUT_CHARS };
  const fields = readMapping(value, path);
  checkKeys(fields, ['rules', 'upstream', 'max_input_chars'], path);
  const rules =
    fields.rules === undefined || fields.rules === null
      ? []
      : readList(fields.rules, at(path, 'rules')).map((raw, i) => {
          const p = at(at(path, 'rules'), i);
          const rule = readMapping(raw, p);
          checkKeys(rule, ['name', 'patterns'], p);
          const name = readString(rule.name, at(p, 'name'));
          const patterns = readList(rule.patterns, at(p, 'patterns')).map((x, j) => {
            const where = at(at(p, 'patterns'), j);
            const source = readString(x, where);
            try {
              return compileModerationPattern(source);
            } catch (err) {
              throw new ConfigError(where, `rule "${name}": ${(err as Error).message}`);
            }
          });
          return { name, patterns };
        });
  let upstream: ModerationConfig['upstream'] = null;
  if (fields.upstream !== undefined && fields.upstream !== null) {
    const p = at(path, 'upstream');
    const u = readMapping(fields.upstream, p);
    checkKeys(u, ['base_url', 'api_key', 'model', 'timeout_ms'], p);
    const baseUrl = optString(u, 'base_url', p);
    if (baseUrl === undefined) throw new ConfigError(at(p, 'base_url'), 'required');
    upstream = { baseUrl, timeoutMs: optInt(u, 'timeout_ms', p, 1) ?? 10_000 };
    const apiKey = optString(u, 'api_key', p);
    if (apiKey !== undefined) upstream.apiKey = apiKey;
    const model = optString(u, 'model', p);
    if (model !== undefined) upstream.model = model;
  }
  const maxInputChars = optInt(fields, 'max_input_chars', path, 1) ?? DEFAULT_MODERATION_MAX_INPUT_CHARS;
  return { rules, upstream, maxInputChars };
}
