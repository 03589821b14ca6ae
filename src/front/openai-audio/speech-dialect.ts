import { extractBearer } from '../../auth/authenticate.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { renderChatError } from '../openai-chat/render-chat-error.ts';
import { decodeSpeechRequest } from './decode-speech-request.ts';
import { encodeSpeechResponse } from './encode-speech-response.ts';
import { SPEECH_CONTENT_TYPES } from '../../providers/tasks/speech-formats.ts';

/** OpenAI speech (`POST /v1/audio/speech`): the audio file as the answer, OpenAI's key header and error shape. */
export const speechDialect: FrontDialect = {
  name: 'speech',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeSpeechRequest,
  encodeResponse: encodeSpeechResponse,
  createStreamEncoder: taskFrontStreamEncoder,
  renderError: renderChatError,
  // Streamed as the provider's pieces arrive, the last held until settlement.
  binaryAnswer: (req) => SPEECH_CONTENT_TYPES[req.task?.kind === 'speech' ? req.task.responseFormat : 'mp3'],
};
