import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink } from '../types.ts';
import { parseRaw } from './decode-gemini-error.ts';
import { GeminiAnswerDecoder } from './gemini-answer-decoder.ts';

/**
 * A whole `generateContent` answer as stream parts, through the same decoder a stream
 * uses. `body` is the parsed JSON, or the text when it did not parse.
 */
export function convertGeminiResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void {
  const decoder = new GeminiAnswerDecoder(endpoint, emit);
  decoder.response(typeof body === 'string' ? parseRaw(body) : body);
  decoder.end(true);
}
