import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';
import { moderatedTexts } from './moderated-texts.ts';
import { ClearTextMemo } from './clear-text-memo.ts';
import { combineModerationPatterns, findPattern, matchesPattern, type ModerationPattern } from '../config/moderation-pattern.ts';

export interface ModerationRule {
  /** The reason reported when it matches (e.g. `violence`). */
  name: string;
  /** Compiled at config load (RE2: linear time), matched case-insensitively. */
  patterns: readonly ModerationPattern[];
}

export interface ModerationUpstream {
  /** OpenAI-compatible base URL: `${baseUrl}/moderations` is called. */
  baseUrl: string;
  apiKey?: string;
  model?: string;
  timeoutMs: number;
}

/**
 * `clear`: nothing flagged. `flagged`: the rules or the upstream flagged the input.
 * `unchecked`: the input could not be checked (longer than the cap, or the moderation
 * upstream failed): moderated endpoints must not see it; `error` is the answer when no
 * unmoderated endpoint is left.
 */
export type ModerationVerdict =
  | { kind: 'clear' }
  | { kind: 'flagged'; reasons: string[]; /** The flagged text (or its start), at most 100 characters. */ flaggedInput: string }
  | { kind: 'unchecked'; error: GatewayError };

const CLEAR: ModerationVerdict = { kind: 'clear' };
const MAX_FLAGGED_INPUT = 100;

/**
 * Checks the input of requests bound for moderated endpoints: every text the model will
 * read (moderated-texts.ts), up to `maxInputChars` in all, against the config's rules first
 * (in-process, linear time), then, when configured, an OpenAI-compatible moderation upstream.
 */
export class Moderator {
  private readonly rules: readonly ModerationRule[];
  private readonly upstream: ModerationUpstream | null;
  private readonly client: UpstreamClient;
  private readonly maxInputChars: number;
  /** All the rules' patterns in one regex: a request whose texts it does not match is clear after one pass per text. */
  private readonly screen: ModerationPattern | null;
  /** Long texts the rules found clear for an account (clear-text-memo.ts). */
  private readonly memo = new ClearTextMemo();

  constructor(rules: readonly ModerationRule[], upstream: ModerationUpstream | null, client: UpstreamClient, maxInputChars: number) {
    this.rules = rules;
    this.upstream = upstream;
    this.client = client;
    this.maxInputChars = maxInputChars;
    this.screen = combineModerationPatterns(rules.flatMap((r) => r.patterns));
  }

  get enabled(): boolean {
    return this.rules.length > 0 || this.upstream !== null;
  }

  /** `scope`: whose request it is (the account): a text found clear is remembered for that scope only. */
  async check(req: CanonicalRequest, signal: AbortSignal, scope = ''): Promise<ModerationVerdict> {
    const texts = moderatedTexts(req);
    let total = 0;
    for (const t of texts) total += t.length;
    if (total > this.maxInputChars) {
      return {
        kind: 'unchecked',
        error: new GatewayError(
          'request_too_large',
          `The input (${total} characters) is longer than moderation reads (${this.maxInputChars}), and every endpoint that could serve this request is moderated.`,
        ),
      };
    }
    const byRules = this.checkRules(texts, scope);
    if (byRules.kind === 'flagged' || this.upstream === null) return byRules;
    return this.checkUpstream(this.upstream, texts, signal);
  }

  private checkRules(texts: readonly string[], scope: string): ModerationVerdict {
    if (this.rules.length === 0) return CLEAR;
    if (texts.every((t) => this.clearText(t, scope))) return CLEAR;
    const reasons: string[] = [];
    let flaggedInput = '';
    for (const rule of this.rules) {
      search: for (const text of texts) {
        for (const pattern of rule.patterns) {
          const at = findPattern(pattern, text);
          if (at < 0) continue;
          reasons.push(rule.name);
          if (flaggedInput === '') flaggedInput = excerpt(text, at);
          break search;
        }
      }
    }
    return reasons.length === 0 ? CLEAR : { kind: 'flagged', reasons, flaggedInput };
  }

  /** Does no rule's pattern match `text`? Long texts found clear are remembered for `scope`. */
  private clearText(text: string, scope: string): boolean {
    const key = this.memo.key(scope, text);
    if (key !== null && this.memo.has(key)) return true;
    const screen = this.screen;
    const clear =
      screen !== null ? !matchesPattern(screen, text) : this.rules.every((r) => r.patterns.every((p) => !matchesPattern(p, text)));
    if (clear && key !== null) this.memo.remember(key);
    return clear;
  }

  private async checkUpstream(up: ModerationUpstream, texts: readonly string[], signal: AbortSignal): Promise<ModerationVerdict> {
    if (texts.length === 0) return CLEAR;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (up.apiKey) headers.authorization = `Bearer ${up.apiKey}`;
    const body: Record<string, unknown> = { input: texts };
    if (up.model) body.model = up.model;
    let json: { results?: Array<{ flagged?: boolean; categories?: Record<string, boolean> }> };
    try {
      const res = await this.client.send(
        { url: `${up.baseUrl.replace(/\/+$/, '')}/moderations`, headers, body: JSON.stringify(body) },
        signal,
        up.timeoutMs,
      );
      const text = await res.body.text();
      if (res.status !== 200) return unchecked(`answered HTTP ${res.status}`);
      json = JSON.parse(text) as typeof json;
      if (!Array.isArray(json.results)) return unchecked('answered without results');
    } catch (err) {
      // Only the kind of failure: neither the upstream's words nor our request go to the client.
      const code = (err as { code?: unknown } | null)?.code;
      return unchecked(
        err instanceof SyntaxError
          ? 'answered with a body that is not JSON'
          : `could not be reached${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    }
    const reasons = new Set<string>();
    let flaggedInput = '';
    json.results.forEach((r, i) => {
      if (!r.flagged) return;
      for (const [category, hit] of Object.entries(r.categories ?? {})) if (hit) reasons.add(category);
      if (flaggedInput === '') flaggedInput = excerpt(texts[i] ?? '', 0);
    });
    if (flaggedInput === '' && reasons.size === 0) return CLEAR;
    return { kind: 'flagged', reasons: reasons.size > 0 ? [...reasons] : ['flagged'], flaggedInput };
  }
}

/** The moderation upstream failed: moderated endpoints are not called with unchecked input (fail closed). */
function unchecked(what: string): ModerationVerdict {
  return {
    kind: 'unchecked',
    error: new GatewayError(
      'provider_error',
      `The moderation service ${what}, so the input could not be checked, and every endpoint that could serve this request is moderated.`,
      {
        metadata: { provider_name: 'moderation', raw: null },
      },
    ),
  };
}

function excerpt(text: string, at: number): string {
  const start = Math.max(0, Math.min(at, text.length - MAX_FLAGGED_INPUT));
  return text.slice(start, start + MAX_FLAGGED_INPUT);
}
