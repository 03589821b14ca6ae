import { ConfigError } from './config-error.ts';
import { at, checkKeys, optInt, optString, readList, readMapping, readString } from './read-fields.ts';
import type { ModerationConfig } from './types.ts';

/**
 * `moderation:` — rules (a reason name and regular expressions, matched case-insensitively)
 * and an optional OpenAI-compatible moderation upstream. Applies to endpoints marked
 * `moderated: true` (per provider or per endpoint).
 */
export function parseModeration(value: unknown, path: string): ModerationConfig {
  if (value === undefined || value === null) return { rules: [], upstream: null };
  const fields = readMapping(value, path);
  checkKeys(fields, ['rules', 'upstream'], path);
  const rules = fields.rules === undefined || fields.rules === null ? [] : readList(fields.rules, at(path, 'rules')).map((raw, i) => {
    const p = at(at(path, 'rules'), i);
    const rule = readMapping(raw, p);
    checkKeys(rule, ['name', 'patterns'], p);
    const patterns = readList(rule.patterns, at(p, 'patterns')).map((x, j) => {
      const source = readString(x, at(at(p, 'patterns'), j));
      try {
        new RegExp(source, 'i');
      } catch (err) {
        throw new ConfigError(at(at(p, 'patterns'), j), `not a valid regular expression: ${(err as Error).message}`);
      }
      return source;
    });
    return { name: readString(rule.name, at(p, 'name')), patterns };
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
  return { rules, upstream };
}
