import type { RequestParameter } from '../../canonical/request.ts';
import type { HttpProviderAdapter } from '../types.ts';
import { bedrockTaskCodec } from './bedrock-embeddings.ts';
import { ConverseStreamDecoder } from './converse-stream-decoder.ts';
import { convertConverseResponse } from './convert-converse-response.ts';
import { convertToConverseRequest } from './convert-to-converse-request.ts';
import { decodeBedrockError } from './decode-bedrock-error.ts';
import { signBedrockRequest } from './sign-bedrock-request.ts';

/**
 * What Converse can carry. Not listed: top_k (a model-specific field), penalties, seed,
 * logit_bias (no such fields), parallel_tool_calls, `user`, `prompt_cache_key` (Bedrock
 * caches at `cachePoint` blocks, which the cache breakpoints become), audio.
 */
const SUPPORTED_PARAMETERS: ReadonlySet<RequestParameter> = new Set<RequestParameter>([
  'temperature',
  'top_p',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'response_format',
  'structured_outputs',
  'reasoning',
  'include_reasoning',
]);

/**
 * AWS Bedrock's Converse API, natively: `POST /model/{id}/converse` and `/converse-stream`
 * (AWS event-stream frames), SigV4-signed per request. Reference/wire-formats.md §5.
 */
export const bedrockAdapter: HttpProviderAdapter = {
  kind: 'bedrock',
  transport: 'http',
  streamFraming: 'aws-eventstream',
  supportedParameters: SUPPORTED_PARAMETERS,
  /** PDFs travel as Converse `document` blocks (inline bytes). */
  readsPdf: () => true,
  encodeRequest: convertToConverseRequest,
  authorize: signBedrockRequest,
  decodeResponse: convertConverseResponse,
  createStreamDecoder(endpoint, emit) {
    return new ConverseStreamDecoder(endpoint, emit);
  },
  decodeError: decodeBedrockError,
  tasks: bedrockTaskCodec,
};
