import { extractBearer } from '../../auth/authenticate.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { renderChatError } from '../openai-chat/render-chat-error.ts';
import { decodeTranscriptionRequest, decodeTranslationRequest } from './decode-transcription-request.ts';
import { encodeTranscriptionResponse } from './encode-transcription-response.ts';

/** OpenAI transcriptions (`POST /v1/audio/transcriptions`, multipart): records name the surface `transcriptions`. */
export const transcriptionsDialect: FrontDialect = {
  name: 'transcriptions',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeTranscriptionRequest,
  encodeResponse: encodeTranscriptionResponse,
  createStreamEncoder: taskFrontStreamEncoder,
  renderError: renderChatError,
};

/** OpenAI translations (`POST /v1/audio/translations`): the same surface, the audio rendered in English. */
export const translationsDialect: FrontDialect = { ...transcriptionsDialect, decode: decodeTranslationRequest };
