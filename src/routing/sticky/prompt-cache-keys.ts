import { createHash, hash as sha256Once, type Hash } from 'node:crypto';
import type { CacheControl, CanonicalRequest, Message } from '../../canonical/request.ts';

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
    return { scope: tag, lookup: [key], store: key, cacheable: true, ttlMs: ttlOf(req) };
  }
  const hash = createHash('sha256').update(`${scope}prefix\n`);
  hash.update(stringifyWithoutCacheControl(req.tools ?? []));
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
  const breakpoint = lastBreakpoint(req);
  let storeEnd = breakpoint >= 0 ? breakpoint + 1 : lastUserTurn(messages);
  // A first turn without a head: its whole prompt is what the next turn begins with.
  if (storeEnd < 1 && first === 1) storeEnd = messages.length;
  let store = boundaries[boundaries.length - 1]!.key;
  for (let j = first; j < boundaries.length; j++) if (boundaries[j]!.end <= storeEnd) store = boundaries[j]!.key;
  const lookup: string[] = [];
  for (let j = boundaries.length - 1; j >= first && lookup.length < MAX_LOOKUP_PREFIXES; j--) lookup.push(boundaries[j]!.key);
  if (first === 0 && lookup.at(-1) !== boundaries[0]!.key) lookup.push(boundaries[0]!.key);
  return { scope: tag, lookup, store, cacheable: hasBreakpoint(req), ttlMs: ttlOf(req) };
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

function withoutCacheControl(key: string, value: unknown): unknown {
  return key === 'cacheControl' ? undefined : value;
}

/** The index of the last message with a `cache_control` breakpoint, or -1 (tools' breakpoints count as the head). */
function lastBreakpoint(req: CanonicalRequest): number {
  for (let i = req.messages.length - 1; i >= 0; i--) if (messageControls(req.messages[i]!).length > 0) return i;
  return -1;
}

function hasBreakpoint(req: CanonicalRequest): boolean {
  return allControls(req).length > 0;
}

function ttlOf(req: CanonicalRequest): number {
  return allControls(req).some((c) => c.ttl === '1h') ? LONG_CACHE_TTL_MS : DEFAULT_CACHE_TTL_MS;
}

function allControls(req: CanonicalRequest): CacheControl[] {
  const out: CacheControl[] = [];
  for (const t of req.tools ?? []) if (t.cacheControl !== undefined) out.push(t.cacheControl);
  for (const m of req.messages) out.push(...messageControls(m));
  return out;
}

function messageControls(m: Message): CacheControl[] {
  const out: CacheControl[] = [];
  for (const part of m.content) if ('cacheControl' in part && part.cacheControl !== undefined) out.push(part.cacheControl);
  return out;
}

/** The number of messages before the last user turn (all of them when there is none). */
function lastUserTurn(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return messages.length;
}
