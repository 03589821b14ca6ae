import type { RequestParameter } from '../../canonical/request.ts';
import type { HttpProviderAdapter } from '../types.ts';
import { AnthropicStreamDecoder } from './anthropic-stream-decoder.ts';
import { convertAnthropicResponse } from './convert-anthropic-response.ts';
import { convertToAnthropicRequest } from './convert-to-anthropic-request.ts';
import { decodeAnthropicError } from './decode-anthropic-error.ts';

/**
 * What the Messages API can carry. Not listed: penalties, seed, logit_bias, min_p, top_a
 * and repetition_penalty (no such fields), `prompt_cache_key` (Anthropic caches by
 * `cache_control` breakpoints, which travel on the blocks), modalities and audio (no audio).
 */
const SUPPORTED_PARAMETERS: ReadonlySet<RequestParameter> = new Set<RequestParameter>([
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'structured_outputs',
  'reasoning',
  'include_reasoning',
  'user',
]);

/** Anthropic's native Messages API (`POST /v1/messages`). */
export const anthropicAdapter: HttpProviderAdapter = {
  kind: 'anthropic',
  transport: 'http',
  supportedParameters: SUPPORTED_PARAMETERS,
  /** PDFs travel as `document` blocks. */
  readsPdf: () => true,
  encodeRequest: convertToAnthropicRequest,
  decodeResponse: convertAnthropicResponse,
  createStreamDecoder(endpoint, emit) {
    return new AnthropicStreamDecoder(endpoint, emit);
  },
  decodeError: decodeAnthropicError,
};
