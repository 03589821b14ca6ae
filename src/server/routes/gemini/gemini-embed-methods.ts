import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  decodeGeminiBatchEmbed,
  decodeGeminiEmbedContent,
  geminiBatchEmbedDialect,
  geminiEmbedContentDialect,
} from '../../../front/gemini-generate/gemini-embed.ts';
import { runGeneration, type GenerationRouteDeps } from '../../generation-route.ts';
import type { GeminiMethod } from './gemini-method.ts';

// embedContent and batchEmbedContents: Gemini's embeddings, for every embedding model of the
// catalog, through the path POST /v1/embeddings takes (records name the surface `embeddings`).

export const embedContent: GeminiMethod = {
  name: 'embedContent',
  charges: true,
  handle(deps: GenerationRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string): Promise<unknown> {
    return runGeneration(deps, geminiEmbedContentDialect, request, reply, decodeGeminiEmbedContent(request.body, model));
  },
};

export const batchEmbedContents: GeminiMethod = {
  name: 'batchEmbedContents',
  charges: true,
  handle(deps: GenerationRouteDeps, request: FastifyRequest, reply: FastifyReply, model: string): Promise<unknown> {
    return runGeneration(deps, geminiBatchEmbedDialect, request, reply, decodeGeminiBatchEmbed(request.body, model));
  },
};
