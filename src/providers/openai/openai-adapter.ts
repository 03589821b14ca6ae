import type { HttpProviderAdapter } from '../types.ts';
import { convertOpenAIChatResponse } from './convert-openai-chat-response.ts';
import { convertToOpenAIChatRequest } from './convert-to-openai-chat-request.ts';
import { decodeOpenAIError } from './decode-openai-error.ts';
import { OpenAIChatStreamDecoder } from './openai-chat-stream-decoder.ts';
import { openAITaskCodec } from './openai-task-codec.ts';
import { allOpenAIProfileParameters, inputKindsFor, openAIProfileFor } from './openai-profiles.ts';

/** OpenAI chat completions: OpenAI itself and any OpenAI-compatible base URL (see openai-profiles.ts). */
export const openaiAdapter: HttpProviderAdapter = {
  kind: 'openai',
  transport: 'http',
  supportedParameters: allOpenAIProfileParameters(),
  supportedParametersFor(provider) {
    return openAIProfileFor(provider).supported;
  },
  /** The vendor's chat API takes `file` parts (its profile; Azure's under a preview api-version). */
  readsPdf(provider) {
    return inputKindsFor(openAIProfileFor(provider), provider).has('file');
  },
  encodeRequest: convertToOpenAIChatRequest,
  decodeResponse: convertOpenAIChatResponse,
  createStreamDecoder(endpoint, emit) {
    return new OpenAIChatStreamDecoder(endpoint, emit);
  },
  decodeError: decodeOpenAIError,
  tasks: openAITaskCodec,
};
