import { chargedPromptTokens } from '../../canonical/prompt-token-bound.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { invalidType, isObject } from '../shared/read-fields.ts';
import { decodeGeminiRequest } from './decode-gemini-request.ts';

// POST /v1beta/models/{model}:countTokens: `{contents}` (with `systemInstruction` and
// `tools`, which Google also takes), or `{generateContentRequest: {...}}` (a whole request
// whose prompt is counted), answered `{totalTokens}` with the gateway's own count (the
// messages endpoint's count_tokens: o200k_base with the chat framing and the media at
// their typical counts, what billing charges when an upstream reports no usage).

export function decodeCountTokensRequest(body: unknown, model: string): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  const whole = body.generateContentRequest;
  if (whole !== undefined && whole !== null) {
    if (!isObject(whole)) throw invalidType('generateContentRequest', 'a GenerateContentRequest object', whole);
    return decodeGeminiRequest(whole, { model, stream: false }, { allowEmptyContents: true });
  }
  return decodeGeminiRequest(body, { model, stream: false }, { allowEmptyContents: true });
}

export function countGeminiTokens(req: CanonicalRequest): { totalTokens: number } {
  return { totalTokens: req.messages.length === 0 ? 0 : chargedPromptTokens(req) };
}
