import type { FinishReason } from '../../canonical/finish-reason.ts';
import { assertNever } from '../../canonical/stream-part.ts';

// A canonical finish → Anthropic's `stop_reason` (reference §7). An Anthropic upstream's
// own value is kept as it was (`pause_turn`, `model_context_window_exceeded` have no
// unified twin); any other is mapped from the unified reason.

const ANTHROPIC_STOP_REASONS: ReadonlySet<string> = new Set([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

/**
 * `hasToolCalls`: the answer holds tool_use blocks. Some OpenAI-compatible servers end a
 * tool call with `stop`; Anthropic clients run tools on `tool_use`, so that is what they get.
 */
export function mapMessagesStopReason(finish: FinishReason | null, hasToolCalls: boolean): string {
  if (finish === null) return hasToolCalls ? 'tool_use' : 'end_turn';
  const raw = finish.raw;
  if (raw !== null && ANTHROPIC_STOP_REASONS.has(raw)) return raw;
  const unified = finish.unified;
  switch (unified) {
    case 'stop':
      if (hasToolCalls) return 'tool_use';
      return finish.stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'error':
      return 'end_turn';
    default:
      return assertNever(unified);
  }
}

/** The stop sequence that ended the answer, only when the stop reason says so. */
export function stopSequenceOf(finish: FinishReason | null, stopReason: string): string | null {
  return stopReason === 'stop_sequence' ? (finish?.stopSequence ?? null) : null;
}
