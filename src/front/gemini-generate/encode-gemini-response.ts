import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { encodeGeminiFinishReason } from './encode-gemini-finish-reason.ts';
import { audioPart, functionCallPart, imagePart, showsThoughts, thoughtPart, type GeminiAnswerPart } from './encode-gemini-parts.ts';
import { encodeGeminiUsage, type GeminiUsageMetadata } from './encode-gemini-usage.ts';

// A whole answer → Gemini's GenerateContentResponse: one candidate, its parts (text,
// thoughts when asked for, function calls with their ids and args, generated media), the
// finish reason, `usageMetadata`, `modelVersion` (the catalog id of the model that served)
// and `responseId` (the generation id, as the `x-generation-id` header). Redacted
// reasoning has no Gemini part and is left out.

export interface GeminiCandidate {
  content: { role: 'model'; parts: GeminiAnswerPart[] };
  finishReason?: string;
  index: number;
}

export interface GeminiResponse {
  candidates: GeminiCandidate[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
}

export function encodeGeminiResponse(resp: CanonicalResponse, meta: ResponseMeta, req: CanonicalRequest): GeminiResponse {
  const show = showsThoughts(req);
  const parts: GeminiAnswerPart[] = [];
  for (const part of resp.content) {
    switch (part.type) {
      case 'text':
        if (part.text.length > 0) parts.push({ text: part.text });
        break;
      case 'reasoning': {
        const thought = thoughtPart(part.text, part.signature, show);
        if (thought !== null) parts.push(thought);
        break;
      }
      case 'redacted-reasoning':
        break;
      case 'tool-call':
        parts.push(functionCallPart(part.id, part.name, part.arguments, part.signature));
        break;
      case 'image-output':
        parts.push(imagePart(part.url));
        break;
      case 'audio-output':
        parts.push(audioPart(part.data, part.format));
        break;
      default:
        assertNever(part);
    }
  }
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: encodeGeminiFinishReason(resp.finish), index: 0 }],
    usageMetadata: encodeGeminiUsage(resp.usage, 0, meta.cost),
    modelVersion: meta.model,
    responseId: meta.id,
  };
}
