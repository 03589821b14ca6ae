import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

/**
 * The unified reason for a Converse `stopReason` (reference §5). Unknown values end the
 * answer as `stop` (or `tool_calls` after tool calls) and keep the raw value.
 */
export function mapConverseStopReason(raw: string | null, sawToolCalls: boolean): FinishReason {
  return { unified: raw === null ? (sawToolCalls ? 'tool_calls' : 'stop') : unifiedFor(raw, sawToolCalls), raw };
}

function unifiedFor(raw: string, sawToolCalls: boolean): UnifiedFinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    // The model's output (or its tool call) did not parse: the answer is broken.
    case 'malformed_model_output':
    case 'malformed_tool_use':
      return 'error';
    default:
      return sawToolCalls ? 'tool_calls' : 'stop';
  }
}
