import type { FastifyReply, FastifyRequest } from 'fastify';
import { geminiArrayDialect, geminiSseDialect } from '../../../front/gemini-generate/gemini-dialect.ts';
import { decodeGeminiRequest } from '../../../front/gemini-generate/decode-gemini-request.ts';
import { runGeneration, type GenerationRouteDeps } from '../../generation-route.ts';
import type { GeminiMethod } from './gemini-method.ts';

// generateContent and streamGenerateContent: the body decoded with the path's model, then
// the one generation path every model route takes (admission, holds, settlement, records,
// metrics). A stream is SSE with `?alt=sse` (what the SDKs and Gemini CLI ask for), else
// Google's JSON-array stream.

function wantsSse(request: FastifyRequest): boolean {
  return (request.query as { alt?: unknown } | undefined)?.alt === 'sse';
}

export const generateContent: GeminiMethod = {
  name: 'generateContent',
  charges: true,
  handle(deps: GenerationRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string): Promise<unknown> {
    return runGeneration(deps, geminiSseDialect, request, reply, decodeGeminiRequest(request.body, { model, stream: false }));
  },
};

export const streamGenerateContent: GeminiMethod = {
  name: 'streamGenerateContent',
  charges: true,
  handle(deps: GenerationRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string): Promise<unknown> {
    const dialect = wantsSse(request) ? geminiSseDialect : geminiArrayDialect;
    return runGeneration(deps, dialect, request, reply, decodeGeminiRequest(request.body, { model, stream: true }));
  },
};
