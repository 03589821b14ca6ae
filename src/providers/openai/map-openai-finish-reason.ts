import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

/**
 * The unified reason for an OpenAI-style `finish_reason`. Compatible servers invent their
 * own values; the unknown ones become `stop` (the answer did end) and keep the raw value.
 */
export function mapOpenAIFinishReason(raw: string): FinishReason {
  return { unified: unifiedFor(raw), raw };
}

function unifiedFor(raw: string): UnifiedFinishReason {
  switch (raw) {
    case 'stop':
    case 'end_turn':
    case 'eos':
      return 'stop';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'tool_calls':
    case 'function_call': // the deprecated functions API
    case 'tool_use':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    case 'error':
    case 'abort': // vLLM: the request was aborted server-side
      return 'error';
    default:
      return 'stop';
  }
}

/**
 * Some compatible servers (older Ollama, some vLLM parsers) say `stop` after calling tools,
 * or give no reason at all; clients loop on `tool_calls`, so tool calls win. The raw value
 * is kept, so nothing is hidden.
 */
export function finishReasonFor(raw: string | null, sawToolCalls: boolean): FinishReason {
  if (raw === null) return { unified: sawToolCalls ? 'tool_calls' : 'stop', raw: null };
  const reason = mapOpenAIFinishReason(raw);
  if (sawToolCalls && reason.unified === 'stop') reason.unified = 'tool_calls';
  return reason;
}

/** A `citations` field as a list of URLs, or undefined when it is absent, empty or not strings. */
export function citationsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return undefined;
  return value as string[];
}
