import { extractBearer } from '../../auth/authenticate.ts';
import type { FrontDialect } from '../front-dialect.ts';
import { decodeChatRequest } from './decode-chat-request.ts';
import { encodeChatResponse } from './encode-chat-response.ts';
import { ChatStreamEncoder } from './encode-chat-stream.ts';
import { renderChatError } from './render-chat-error.ts';

/** OpenAI chat completions. */
export const chatDialect: FrontDialect = {
  name: 'chat',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeChatRequest,
  encodeResponse: encodeChatResponse,
  createStreamEncoder: (meta) => new ChatStreamEncoder(meta),
  renderError: renderChatError,
};
