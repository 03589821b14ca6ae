import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { RawAnswer, type ResponseMeta } from '../front-dialect.ts';
import { SPEECH_CONTENT_TYPES } from '../../providers/tasks/speech-formats.ts';

/**
 * The audio as the provider made it, whole, with its content type. The speech route streams
 * its answer instead (the dialect's `binaryAnswer`, server/binary-answer.ts); this is the
 * dialect's whole-answer form, for a caller that folds.
 */
export function encodeSpeechResponse(resp: CanonicalResponse, _meta: ResponseMeta, req: CanonicalRequest): RawAnswer {
  const result = resp.task?.kind === 'speech' ? resp.task : null;
  const format = req.task?.kind === 'speech' ? req.task.responseFormat : 'mp3';
  return new RawAnswer(result?.contentType ?? SPEECH_CONTENT_TYPES[format], result?.audio ?? Buffer.alloc(0));
}
