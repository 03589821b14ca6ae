import { extractBearer } from '../../auth/authenticate.ts';
import type { FrontDialect } from '../front-dialect.ts';
import { decodeResponsesRequest } from './decode-responses-request.ts';
import { encodeResponsesResponse } from './encode-responses-response.ts';
import { ResponsesStreamEncoder } from './encode-responses-stream.ts';
import { renderResponsesError } from './render-responses-error.ts';

/** The OpenAI Responses API, stateless: every request carries the whole conversation. */
export const responsesDialect: FrontDialect = {
  name: 'responses',
  readKey: (headers) => extractBearer(headers.authorization),
  decode: decodeResponsesRequest,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: (meta, req) => new ResponsesStreamEncoder(meta, req),
  renderError: renderResponsesError,
};
