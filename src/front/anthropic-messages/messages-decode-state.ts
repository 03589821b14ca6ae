import type { CacheControl } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { describeType, invalidValue, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';

// What decoding a messages request shares across `system`, `tools` and `messages`: the
// cache_control count (Anthropic's limit of 4 breakpoints counts all three together), the
// names of the tool calls seen so far, and the error helpers that name a block by its path.
//
// A block is located by (i, j, k): i is the message index, or SYSTEM for the top-level
// `system` array, or TOOLS for `tools`; j the block's index; k an inner block of a
// `tool_result` (or -1). Paths are only built when an error is thrown.

export const SYSTEM = -1;
export const TOOLS = -2;

/** The spec allows at most this many blocks with `cache_control` per request. */
export const MAX_CACHE_CONTROL_BLOCKS = 4;

export interface DecodeState {
  cacheControlBlocks: number;
  /** tool_use id → tool name, so that a tool result can name the tool it answers. */
  toolNames: Map<string, string> | null;
  /** PDFs sent inline (`document` blocks), for CanonicalRequest.inlinePdfs. */
  inlinePdfs: number;
}

export function newDecodeState(): DecodeState {
  return { cacheControlBlocks: 0, toolNames: null, inlinePdfs: 0 };
}

export function blockPath(i: number, j: number, k = -1): string {
  const base = i === SYSTEM ? `system[${j}]` : i === TOOLS ? `tools[${j}]` : `messages[${i}].content[${j}]`;
  return k < 0 ? base : `${base}.content[${k}]`;
}

/** A problem inside `messages` (or `system`) is invalid_message; inside `tools`, invalid_parameter. */
export function blockError(i: number, param: string, rule: string): GatewayError {
  return i === TOOLS ? invalidValue(param, rule) : messageError(param, rule);
}

export function missingBlockField(i: number, param: string): GatewayError {
  if (i === TOOLS) return new GatewayError('missing_parameter', `Missing required parameter '${param}'.`, { param });
  return missingField(param);
}

/** A string field of block (i, j, k); absent → missing, wrong type → invalid. */
export function requireBlockString(block: JsonObject, key: string, i: number, j: number, k = -1): string {
  const value = block[key];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) throw missingBlockField(i, `${blockPath(i, j, k)}.${key}`);
  throw blockError(i, `${blockPath(i, j, k)}.${key}`, `expected a string, got ${describeType(value)}`);
}

/** The block's `type`, or an error naming the block. */
export function blockType(block: unknown, i: number, j: number, k = -1): string {
  if (!isObject(block)) throw blockError(i, blockPath(i, j, k), `expected a content block object, got ${describeType(block)}`);
  const type = block.type;
  if (typeof type === 'string') return type;
  if (type === undefined || type === null) throw missingBlockField(i, `${blockPath(i, j, k)}.type`);
  throw blockError(i, `${blockPath(i, j, k)}.type`, `expected a string, got ${describeType(type)}`);
}

const CACHE_TTLS: ReadonlySet<string> = new Set(['5m', '1h']);

/** Reads `cache_control` of a block into `out`, counting it against the request's limit. */
export function readCacheControl(
  block: JsonObject,
  out: { cacheControl?: CacheControl },
  state: DecodeState,
  i: number,
  j: number,
  k = -1,
): void {
  const raw = block.cache_control;
  if (raw === undefined || raw === null) return;
  if (!isObject(raw)) {
    throw blockError(i, `${blockPath(i, j, k)}.cache_control`, `expected an object {type: 'ephemeral', ttl?}, got ${describeType(raw)}`);
  }
  if (raw.type !== 'ephemeral') {
    throw blockError(i, `${blockPath(i, j, k)}.cache_control.type`, `must be 'ephemeral', got ${JSON.stringify(raw.type ?? null)}`);
  }
  if (++state.cacheControlBlocks > MAX_CACHE_CONTROL_BLOCKS) {
    const param = `${blockPath(i, j, k)}.cache_control`;
    throw new GatewayError(
      'too_many_cache_control_blocks',
      `Too many cache_control blocks: at most ${MAX_CACHE_CONTROL_BLOCKS} blocks (system, tools and messages together) may carry 'cache_control', and '${param}' is block ${state.cacheControlBlocks}.`,
      { param },
    );
  }
  const cc: CacheControl = { type: 'ephemeral' };
  const ttl = raw.ttl;
  if (ttl !== undefined && ttl !== null) {
    if (typeof ttl !== 'string' || !CACHE_TTLS.has(ttl)) {
      throw blockError(i, `${blockPath(i, j, k)}.cache_control.ttl`, `must be '5m' or '1h', got ${JSON.stringify(ttl)}`);
    }
    cc.ttl = ttl;
  }
  out.cacheControl = cc;
}

/**
 * Block types of the Anthropic API that the gateway cannot carry to every provider (the
 * spec: not supported): a clear unsupported_content rather than "unknown type".
 */
const UNSUPPORTED_BLOCKS: ReadonlySet<string> = new Set([
  'document',
  'search_result',
  'server_tool_use',
  'mcp_tool_use',
  'mcp_tool_result',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'container_upload',
  'tool_reference',
]);

/** The error for a block type not allowed where it is: unsupported_content for known API types, else invalid_message. */
export function unexpectedBlock(type: string, i: number, j: number, allowed: string, k = -1): GatewayError {
  const param = `${blockPath(i, j, k)}.type`;
  if (UNSUPPORTED_BLOCKS.has(type)) {
    return new GatewayError(
      'unsupported_content',
      `Unsupported content block type ${JSON.stringify(type)} at '${param}': the gateway carries ${allowed} blocks here, not ${type} blocks.`,
      { param },
    );
  }
  return blockError(i, param, `unsupported content block type ${JSON.stringify(type)} here; expected one of ${allowed}`);
}
