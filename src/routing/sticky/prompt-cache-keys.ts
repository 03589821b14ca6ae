import { createHash, hash as sha256Once, type Hash } from 'node:crypto';
import type { CacheControl, CanonicalRequest, Message, ToolDefinition } from '../../canonical/request.ts';
import { schemaJson } from '../../canonical/schema-json.ts';

/** Five minutes: the prompt caches' default lifetime (Anthropic, OpenAI), refreshed on each hit. */
export const DEFAULT_CACHE_TTL_MS = 5 * 60_000;
/** `cache_control: {ttl: "1h"}` breakpoints. */
export const LONG_CACHE_TTL_MS = 60 * 60_000;
/** Prefix lengths looked up per request (the longest ones): bounds the lookup's work on long conversations. */
export const MAX_LOOKUP_PREFIXES = 32;

/**
 * Where a request's prompt cache lives, as sticky routing sees it. Keys are hex SHA-256
 * digests of the account, the model and the prompt prefix, so one account's prompts never
 * name another's entries and no prompt text is stored.
 *
 * - `lookup`: the keys of every prefix a provider may have cached for this request, longest
 *   first: the request's `prompt_cache_key` alone when it sets one; otherwise the tools and
 *   system messages (the head every turn shares; not when there are none) and each longer
 *   prefix ending at a message boundary (the last `MAX_LOOKUP_PREFIXES`). Prefixes are hashed without their
 *   `cache_control` markers: a client moves its breakpoints from turn to turn.
 * - `store`: the key to remember the serving endpoint under: the `prompt_cache_key`; or the
 *   prefix up to the message holding the last `cache_control` breakpoint; or, with neither,
 *   the prefix before the last user turn (what the next turn re-sends unchanged), or the
 *   whole prompt when that prefix would be empty (a first turn without system or tools).
 * - `cacheable`: the request asked for caching (a `prompt_cache_key` or a breakpoint): its
 *   endpoint is remembered even when the answer reports no cache tokens.
 * - `ttlMs`: 1 h when a breakpoint asks for `ttl: "1h"`, else 5 min.
 * - `scope`: a short digest of the account and the model, the same for all of the above: a
 *   shared store keeps a request's keys together under it (one Redis Cluster slot, so the
 *   lookup is one MGET).
 */
export interface PromptCacheKeys {
  scope: string;
  lookup: string[];
  store: string;
  cacheable: boolean;
  ttlMs: number;
}

export function promptCacheKeys(accountId: string, modelId: string, req: CanonicalRequest): PromptCacheKeys {
  const scope = `${accountId}\n${modelId}\n`;
  const tag = scopeTag(scope);
  if (req.promptCacheKey !== undefined) {
    const key = sha256Once('sha256', `${scope}pck\n${req.promptCacheKey}`);
    return {
      scope: tag,
      lookup: [key],
      store: key,
      cacheable: true,
      ttlMs: breakpoints(req).longTtl ? LONG_CACHE_TTL_MS : DEFAULT_CACHE_TTL_MS,
    };
  }
  const hash = createHash('sha256').update(`${scope}prefix\n`);
  hash.update(toolsText(req.tools ?? []));
  const messages = req.messages;
  let i = 0;
  // The head: the system messages at the start, which every turn of a conversation repeats.
  while (i < messages.length && messages[i]!.role === 'system') hash.update(encodeMessage(messages[i++]!));
  const boundaries: Array<{ end: number; key: string }> = [{ end: i, key: digest(hash.copy()) }];
  for (; i < messages.length; i++) {
    hash.update(encodeMessage(messages[i]!));
    boundaries.push({ end: i + 1, key: digest(hash.copy()) });
  }
  // An empty head (no tools, no system message) is the same for every conversation: not a key.
  const first = boundaries[0]!.end === 0 && (req.tools?.length ?? 0) === 0 ? 1 : 0;
  const marks = breakpoints(req);
  const breakpoint = marks.last;
  let storeEnd = breakpoint >= 0 ? breakpoint + 1 : lastUserTurn(messages);
  // A first turn without a head: its whole prompt is what the next turn begins with.
  if (storeEnd < 1 && first === 1) storeEnd = messages.length;
  let store = boundaries[boundaries.length - 1]!.key;
  for (let j = first; j < boundaries.length; j++) if (boundaries[j]!.end <= storeEnd) store = boundaries[j]!.key;
  const lookup: string[] = [];
  for (let j = boundaries.length - 1; j >= first && lookup.length < MAX_LOOKUP_PREFIXES; j--) lookup.push(boundaries[j]!.key);
  if (first === 0 && lookup.at(-1) !== boundaries[0]!.key) lookup.push(boundaries[0]!.key);
  return { scope: tag, lookup, store, cacheable: marks.any, ttlMs: marks.longTtl ? LONG_CACHE_TTL_MS : DEFAULT_CACHE_TTL_MS };
}

function digest(hash: Hash): string {
  return hash.digest('hex');
}

/** Scope tags by account and model: a handful per gateway, hashed once each (bounded, in case of very many). */
const scopeTags = new Map<string, string>();
const MAX_SCOPE_TAGS = 10_000;

function scopeTag(scope: string): string {
  let tag = scopeTags.get(scope);
  if (tag === undefined) {
    tag = sha256Once('sha256', scope).slice(0, 16);
    if (scopeTags.size >= MAX_SCOPE_TAGS) scopeTags.clear();
    scopeTags.set(scope, tag);
  }
  return tag;
}

function encodeMessage(m: Message): string {
  return `${stringifyWithoutCacheControl(m)}\n`;
}

/**
 * JSON text without any `cacheControl` member. JSON.stringify with a replacer leaves V8's
 * fast path, so the plain text is tried first: when it names no `cacheControl` (most
 * messages), it is the same text the replacer would give.
 */
function stringifyWithoutCacheControl(value: unknown): string {
  const plain = JSON.stringify(value);
  return plain.includes('"cacheControl"') ? JSON.stringify(value, withoutCacheControl) : plain;
}

/**
 * `stringifyWithoutCacheControl(tools)`, the same text, with each parameter schema's text
 * taken from the request's one serialization of it (schema-json.ts) instead of made again.
 */
function toolsText(tools: readonly ToolDefinition[]): string {
  let out = '[';
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i]!;
    const params = schemaJson(tool.parameters);
    // A schema naming `cacheControl` loses that member to the replacer: the slow path says exactly how.
    if (params.includes('"cacheControl"')) return stringifyWithoutCacheControl(tools);
    if (i > 0) out += ',';
    out += '{';
    let first = true;
    for (const key of Object.keys(tool)) {
      if (key === 'cacheControl') continue;
      const value = (tool as unknown as Record<string, unknown>)[key];
      const text = key === 'parameters' ? params : value === undefined ? undefined : stringifyWithoutCacheControl(value);
      if (text === undefined) continue; // as JSON.stringify leaves out undefined members (and functions)
      out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
    }
    out += '}';
  }
  return `${out}]`;
}

function withoutCacheControl(key: string, value: unknown): unknown {
  return key === 'cacheControl' ? undefined : value;
}

/**
 * The request's `cache_control` breakpoints in one pass: any at all, any asking for 1 h, and
 * the index of the last message holding one (-1: none; tools' breakpoints count as the head).
 */
export function breakpoints(req: CanonicalRequest): { any: boolean; longTtl: boolean; last: number } {
  let any = false;
  let longTtl = false;
  let last = -1;
  const see = (c: CacheControl | undefined): boolean => {
    if (c === undefined) return false;
    any = true;
    if (c.ttl === '1h') longTtl = true;
    return true;
  };
  for (const t of req.tools ?? []) see(t.cacheControl);
  const messages = req.messages;
  for (let i = 0; i < messages.length; i++) {
    for (const part of messages[i]!.content) if ('cacheControl' in part && see(part.cacheControl)) last = i;
  }
  return { any, longTtl, last };
}

/**
 * The fewest prompt tokens any provider caches (DeepSeek caches in units of 64 tokens;
 * OpenAI, Anthropic and Gemini start at 1,024 or more): a shorter prompt cannot have been
 * cached anywhere, and nothing it could be remembered under would be found cached.
 */
export const MIN_CACHED_PROMPT_TOKENS = 64;

/**
 * Whether sticky routing has anything to do for this request: its prompt is long enough for
 * some provider to cache it (by the token estimate), or it asks for caching itself (a
 * `prompt_cache_key`, which names the conversation from its first short turn on, or a
 * breakpoint). Otherwise no key is computed and no store is asked.
 */
export function mayUsePromptCache(req: CanonicalRequest, estimatedPromptTokens: number): boolean {
  return estimatedPromptTokens >= MIN_CACHED_PROMPT_TOKENS || req.promptCacheKey !== undefined || breakpoints(req).any;
}

/** The number of messages before the last user turn (all of them when there is none). */
function lastUserTurn(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return messages.length;
}
