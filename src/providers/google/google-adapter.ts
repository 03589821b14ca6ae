import type { HttpProviderAdapter } from '../types.ts';
import { convertGeminiResponse } from './convert-gemini-response.ts';
import { convertToGeminiRequest } from './convert-to-gemini-request.ts';
import { decodeGeminiError } from './decode-gemini-error.ts';
import { GEMINI_SUPPORTED_PARAMETERS } from './gemini-parameters.ts';
import { GeminiStreamDecoder } from './gemini-stream-decoder.ts';
import { googleTaskCodec } from './google-task-codec.ts';

/**
 * Google's Gemini API, natively: generateContent and streamGenerateContent with
 * `x-goog-api-key`. Thinking, thought signatures across turns (in tool-call ids), images,
 * PDFs and audio inline, structured output by response schema. reference/wire-formats.md §4.
 */
export const googleAdapter: HttpProviderAdapter = {
  kind: 'google',
  transport: 'http',
  supportedParameters: GEMINI_SUPPORTED_PARAMETERS,
  encodeRequest: convertToGeminiRequest,
  decodeResponse: convertGeminiResponse,
  createStreamDecoder(endpoint, emit) {
    return new GeminiStreamDecoder(endpoint, emit);
  },
  decodeError: decodeGeminiError,
  tasks: googleTaskCodec,
};
