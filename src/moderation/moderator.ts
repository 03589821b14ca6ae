import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamClient } from '../providers/http/upstream-client.ts';

export interface ModerationRule {
  /** The reason reported when it matches (e.g. `violence`). */
  name: string;
  /** Regular expressions, matched case-insensitively. */
  patterns: RegExp[];
}

export interface ModerationUpstream {
  /** OpenAI-compatible base URL: `${baseUrl}/moderations` is called. */
  baseUrl: string;
  apiKey?: string;
  model?: string;
  timeoutMs: number;
}

export interface ModerationVerdict {
  flagged: boolean;
  reasons: string[];
  /** The flagged text (or its start), at most 100 characters. */
  flaggedInput: string;
}

const NOT_FLAGGED: ModerationVerdict = { flagged: false, reasons: [], flaggedInput: '' };
const MAX_FLAGGED_INPUT = 100;

/**
 * Checks the input of requests bound for moderated endpoints: the config's rules first
 * (in-process, cheap), then, when configured, an OpenAI-compatible moderation upstream.
 */
export class Moderator {
  private readonly rules: readonly ModerationRule[];
  private readonly upstream: ModerationUpstream | null;
  private readonly client: UpstreamClient;

  constructor(rules: readonly ModerationRule[], upstream: ModerationUpstream | null, client: UpstreamClient) {
    this.rules = rules;
    this.upstream = upstream;
    this.client = client;
  }

  get enabled(): boolean {
    return this.rules.length > 0 || this.upstream !== null;
  }

  async check(req: CanonicalRequest, signal: AbortSignal): Promise<ModerationVerdict> {
    const texts = inputTexts(req);
    const byRules = this.checkRules(texts);
    if (byRules.flagged || this.upstream === null) return byRules;
    return this.checkUpstream(this.upstream, texts, signal);
  }

  private checkRules(texts: readonly string[]): ModerationVerdict {
    const reasons: string[] = [];
    let flaggedInput = '';
    for (const rule of this.rules) {
      for (const text of texts) {
        const m = rule.patterns.map((p) => p.exec(text)).find((x) => x !== null);
        if (m) {
          reasons.push(rule.name);
          if (flaggedInput === '') flaggedInput = excerpt(text, m.index);
          break;
        }
      }
    }
    return reasons.length === 0 ? NOT_FLAGGED : { flagged: true, reasons, flaggedInput };
  }

  private async checkUpstream(up: ModerationUpstream, texts: readonly string[], signal: AbortSignal): Promise<ModerationVerdict> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (up.apiKey) headers.authorization = `Bearer ${up.apiKey}`;
    const body: Record<string, unknown> = { input: texts };
    if (up.model) body.model = up.model;
    let json: { results?: Array<{ flagged?: boolean; categories?: Record<string, boolean> }> };
    try {
      const res = await this.client.send({ url: `${up.baseUrl.replace(/\/+$/, '')}/moderations`, headers, body: JSON.stringify(body) }, signal, up.timeoutMs);
      const text = await res.body.text();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      json = JSON.parse(text);
    } catch (err) {
      // Failing closed: a moderated endpoint is not called with unchecked input.
      throw new GatewayError('provider_error', 'The moderation service could not check the input.', {
        metadata: { provider_name: 'moderation', raw: (err as Error).message },
      });
    }
    const results = json.results ?? [];
    const reasons = new Set<string>();
    let flaggedInput = '';
    results.forEach((r, i) => {
      if (!r.flagged) return;
      for (const [category, hit] of Object.entries(r.categories ?? {})) if (hit) reasons.add(category);
      if (flaggedInput === '') flaggedInput = excerpt(texts[i] ?? '', 0);
    });
    if (flaggedInput === '' && reasons.size === 0) return NOT_FLAGGED;
    return { flagged: true, reasons: reasons.size > 0 ? [...reasons] : ['flagged'], flaggedInput };
  }
}

/** The text a client sent (system and user messages, tool results): what moderation reads. */
function inputTexts(req: CanonicalRequest): string[] {
  const out: string[] = [];
  for (const m of req.messages) {
    if (m.role === 'assistant') continue;
    for (const part of m.content) {
      if (part.type === 'text') out.push(part.text);
      else if (part.type === 'tool-result') out.push(typeof part.content === 'string' ? part.content : part.content.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    }
  }
  return out;
}

function excerpt(text: string, at: number): string {
  const start = Math.max(0, Math.min(at, text.length - MAX_FLAGGED_INPUT));
  return text.slice(start, start + MAX_FLAGGED_INPUT);
}

export function compileModerationRule(name: string, patterns: readonly string[]): ModerationRule {
  return { name, patterns: patterns.map((p) => new RegExp(p, 'i')) };
}
