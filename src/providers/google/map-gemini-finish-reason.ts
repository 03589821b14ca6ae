import type { FinishReason, UnifiedFinishReason } from '../../canonical/finish-reason.ts';

/**
 * Gemini's `finishReason` → the unified reason. Function calls end with `STOP` (there is no
 * tool-use reason), so calls seen make it `tool_calls`. The raw value is always kept.
 */
export function mapGeminiFinishReason(raw: string, sawToolCalls: boolean): FinishReason {
  const unified = unifiedFor(raw);
  return { unified: sawToolCalls && unified === 'stop' ? 'tool_calls' : unified, raw };
}

function unifiedFor(raw: string): UnifiedFinishReason {
  switch (raw) {
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'LANGUAGE':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content_filter';
    // The model broke off: a call it could not form, or one it was not allowed to make.
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return 'error';
    // FINISH_REASON_UNSPECIFIED, OTHER, NO_IMAGE, IMAGE_OTHER and values added later: the
    // answer did end, for no reason the unified set names.
    default:
      return 'stop';
  }
}

/** A prompt blocked before any answer (`promptFeedback.blockReason`). */
export function blockedFinishReason(blockReason: string): FinishReason {
  return { unified: 'content_filter', raw: blockReason };
}
