import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { RawAnswer, type ResponseMeta } from '../front-dialect.ts';
import { SPEECH_CONTENT_TYPES } from '../../providers/tasks/speech-formats.ts';

/** The audio as the provider made it, with its content type (X-Generation-Id rides the response headers). */
export function encodeSpeechResponse(resp: CanonicalResponse, _meta: ResponseMeta, req: CanonicalRequest): RawAnswer {
  const result = resp.task?.kind === 'speech' ? resp.task : null;
  const format = req.task?.kind === 'speech' ? req.task.responseFormat : 'mp3';
  return new RawAnswer(result?.contentType ?? SPEECH_CONTENT_TYPES[format], result?.audio ?? Buffer.alloc(0));
}
