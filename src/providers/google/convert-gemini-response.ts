import type { Endpoint } from '../../catalog/types.ts';
import { parseRawBody } from '../http/upstream-error.ts';
import type { PartSink } from '../types.ts';
import { GeminiAnswerDecoder } from './gemini-answer-decoder.ts';

/**
 * A whole `generateContent` answer as stream parts, through the same decoder a stream
 * uses. `body` is the parsed JSON, or the text when it did not parse.
 */
export function convertGeminiResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void {
  const decoder = new GeminiAnswerDecoder(endpoint, emit);
  decoder.response(typeof body === 'string' ? parseRawBody(body) : body);
  decoder.end(true);
}
