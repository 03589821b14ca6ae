import { estimateRequestTokens } from '../../canonical/estimate-tokens.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { decodeMessagesRequest, type MessagesDecodeOptions } from './decode-messages-request.ts';

// POST /v1/messages/count_tokens: the same body as a message request, without
// `max_tokens`, answered with the gateway's estimate of its input tokens (the estimate
// billing reserves with). A real estimate, never a placeholder: Claude Code's compaction
// decides by it.

const COUNT_TOKENS: MessagesDecodeOptions = { requireMaxTokens: false };

export function decodeCountTokensRequest(body: unknown): CanonicalRequest {
  return decodeMessagesRequest(body, COUNT_TOKENS);
}

export function countMessageTokens(req: CanonicalRequest): { input_tokens: number } {
  return { input_tokens: estimateRequestTokens(req) };
}
