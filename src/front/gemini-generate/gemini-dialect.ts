import type { IncomingHttpHeaders } from 'node:http';
import { extractBearer } from '../../auth/authenticate.ts';
import type { FrontDialect } from '../front-dialect.ts';
import { encodeGeminiResponse } from './encode-gemini-response.ts';
import { GeminiStreamEncoder, type GeminiFraming } from './encode-gemini-stream.ts';
import { renderGeminiError } from './render-gemini-error.ts';

/**
 * The API key, as Google's clients send it: `x-goog-api-key` (the SDKs, Gemini CLI), else
 * the `key` query parameter (REST examples, curl), else `Authorization: Bearer`.
 */
export function readGeminiKey(headers: IncomingHttpHeaders, url?: string): string | undefined {
  const header = headers['x-goog-api-key'];
  if (typeof header === 'string' && header.trim().length > 0) return header.trim();
  if (url !== undefined) {
    const q = url.indexOf('?');
    if (q !== -1) {
      const key = new URLSearchParams(url.slice(q + 1)).get('key');
      if (key !== null && key.length > 0) return key.trim();
    }
  }
  return extractBearer(headers.authorization);
}

/**
 * Gemini's generateContent and streamGenerateContent. The model and the streaming come
 * from the path (`models/{model}:streamGenerateContent`), so `decode` is not the route's:
 * the Gemini route decodes with `decodeGeminiRequest` (decode-gemini-request.ts) and the
 * target it read from the path.
 */
function geminiDialect(framing: GeminiFraming): FrontDialect {
  const dialect: FrontDialect = {
    name: 'gemini',
    readKey: readGeminiKey,
    keyHeaders: 'google',
    decode: () => {
      throw new Error('the Gemini route decodes with decodeGeminiRequest and the target of its path');
    },
    encodeResponse: encodeGeminiResponse,
    createStreamEncoder: (meta, req) => new GeminiStreamEncoder(meta, req, framing),
    renderError: renderGeminiError,
  };
  return framing === 'json-array' ? { ...dialect, streamContentType: 'application/json; charset=utf-8' } : dialect;
}

/** Streams as SSE (`?alt=sse`); answers and errors as any Gemini response. */
export const geminiSseDialect: FrontDialect = geminiDialect('sse');
/** Streams as one JSON array (streamGenerateContent without `alt=sse`). */
export const geminiArrayDialect: FrontDialect = geminiDialect('json-array');
