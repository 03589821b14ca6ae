import { extractBearer } from '../../auth/authenticate.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { renderChatError } from '../openai-chat/render-chat-error.ts';
import { decodeEmbeddingsRequest } from './decode-embeddings-request.ts';
import { encodeEmbeddingsResponse } from './encode-embeddings-response.ts';

/** OpenAI embeddings (`POST /v1/embeddings`): OpenAI's key header and error shape. */
export const embeddingsDialect: FrontDialect = {
  name: 'embeddings',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeEmbeddingsRequest,
  encodeResponse: encodeEmbeddingsResponse,
  createStreamEncoder: taskFrontStreamEncoder,
  renderError: renderChatError,
};
