import type { FinishReason } from '../../canonical/finish-reason.ts';
import { assertNever } from '../../canonical/stream-part.ts';

// A canonical finish → Gemini's `finishReason`. A Gemini upstream's own value is kept as it
// was (`RECITATION`, `MALFORMED_FUNCTION_CALL`, ... have no unified twin); any other is
// mapped from the unified reason. Gemini ends function calls with `STOP`.

const GEMINI_FINISH_REASONS: ReadonlySet<string> = new Set([
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
]);

export function encodeGeminiFinishReason(finish: FinishReason | null): string {
  if (finish === null) return 'STOP';
  const raw = finish.raw;
  if (raw !== null && GEMINI_FINISH_REASONS.has(raw)) return raw;
  const unified = finish.unified;
  switch (unified) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'error':
      return 'OTHER';
    default:
      return assertNever(unified);
  }
}
