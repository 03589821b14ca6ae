import { chargedPromptTokens } from '../../canonical/prompt-token-bound.ts';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { decodeMessagesRequest, type MessagesDecodeOptions } from './decode-messages-request.ts';

// POST /v1/messages/count_tokens: the same body as a message request, without
// `max_tokens`, answered with a real tokenizer's count of its input tokens (o200k_base,
// with OpenAI's chat framing and the media at their typical counts: what billing charges
// when an upstream reports no usage). Never a placeholder: Claude Code's compaction decides
// by it. Claude's own tokenizer is not public; its counts run up to ~1.35x higher.

const COUNT_TOKENS: MessagesDecodeOptions = { requireMaxTokens: false };

export function decodeCountTokensRequest(body: unknown): CanonicalRequest {
  return decodeMessagesRequest(body, COUNT_TOKENS);
}

export function countMessageTokens(req: CanonicalRequest): { input_tokens: number } {
  return { input_tokens: chargedPromptTokens(req) };
}
