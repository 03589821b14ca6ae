import { extractBearer } from '../../auth/authenticate.ts';
import { taskFrontStreamEncoder, type FrontDialect } from '../front-dialect.ts';
import { renderChatError } from '../openai-chat/render-chat-error.ts';
import { decodeImageEditRequest } from './decode-image-edit-request.ts';
import { decodeImageGenerationRequest } from './decode-image-generation-request.ts';
import { encodeImagesResponse, type ImagePublisher } from './encode-images-response.ts';

/**
 * OpenAI images (`POST /v1/images/generations`, JSON; `POST /v1/images/edits`, multipart):
 * OpenAI's key header and error shape. `publish` keeps the images answered as URLs.
 */
export function imagesDialects(publish: ImagePublisher): { generations: FrontDialect; edits: FrontDialect } {
  const base = {
    name: 'images',
    readKey: (headers) => extractBearer(headers.authorization),
    encodeResponse: (resp, meta, req) => encodeImagesResponse(resp, meta, req, publish),
    createStreamEncoder: taskFrontStreamEncoder,
    renderError: renderChatError,
  } satisfies Omit<FrontDialect, 'decode'>;
  return {
    generations: { ...base, decode: decodeImageGenerationRequest },
    edits: { ...base, decode: decodeImageEditRequest },
  };
}
