import { extractBearer } from '../../auth/authenticate.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { renderChatError } from '../openai-chat/render-chat-error.ts';
import { decodeSpeechRequest } from './decode-speech-request.ts';
import { encodeSpeechResponse } from './encode-speech-response.ts';

/** OpenAI speech (`POST /v1/audio/speech`): the audio file as the answer, OpenAI's key header and error shape. */
export const speechDialect: FrontDialect = {
  name: 'speech',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeSpeechRequest,
  encodeResponse: encodeSpeechResponse,
  createStreamEncoder: taskFrontStreamEncoder,
  renderError: renderChatError,
};
