import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

/**
 * The unified reason for an Anthropic `stop_reason` (reference §7). A missing reason after
 * tool calls says `tool_calls`, since clients loop on it; unknown values (the API adds them
 * over time) end the answer as `stop` and keep the raw value.
 */
export function mapAnthropicStopReason(raw: string | null, stopSequence: string | null, sawToolCalls: boolean): FinishReason {
  const reason: FinishReason = { unified: raw === null ? (sawToolCalls ? 'tool_calls' : 'stop') : unifiedFor(raw, sawToolCalls), raw };
  if (stopSequence !== null && raw === 'stop_sequence') reason.stopSequence = stopSequence;
  return reason;
}

function unifiedFor(raw: string, sawToolCalls: boolean): UnifiedFinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    // A server tool ran out of turns; the answer so far is whole and the client may resend it.
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return sawToolCalls ? 'tool_calls' : 'stop';
  }
}
