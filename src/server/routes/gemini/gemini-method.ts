import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GenerationRouteDeps } from '../../generation-route.ts';
import type { InForce } from '../../wiring/in-force.ts';

/** What Gemini's model methods use: the model-calling handler's collaborators, and the catalog (countTokens). */
export type GeminiMethodDeps = GenerationRouteDeps & { inForce: Pick<InForce, 'catalog'> };

// Gemini's model methods are written after the model in one path segment
// (`/v1beta/models/{model}:generateContent`), and a catalog id holds a slash, so no router
// pattern can take them apart: the route takes `/v1beta/models/*` and reads the tail here.
// The method is what follows the last `:` (a catalog name may hold colons itself:
// `openai/gpt-4o:free`); the model is what precedes it, its slash as sent or as `%2F` (the
// router decodes it). A `models/` prefix is the path's own and is never part of the name.

export interface GeminiPath {
  model: string;
  /** The method after the last `:`, or '' when the path names none. */
  method: string;
}

export function parseGeminiPath(tail: string): GeminiPath {
  const colon = tail.lastIndexOf(':');
  if (colon <= 0) return { model: tail, method: '' };
  return { model: tail.slice(0, colon), method: tail.slice(colon + 1) };
}

/** The target of a request to `/v1beta/models/*`. */
export function geminiTarget(request: FastifyRequest): GeminiPath {
  return parseGeminiPath((request.params as { '*'?: string })['*'] ?? '');
}

/**
 * One POST method of the Gemini API. Each lives in its own file and is listed in
 * gemini-routes.ts: adding one (`embedContent`) is a file and a line.
 */
export interface GeminiMethod {
  /** The name after the colon: `generateContent`. */
  readonly name: string;
  /**
   * A model call that spends credit: a key that cannot pay is refused before its body is
   * read, as on every model route. False for methods that only count.
   */
  readonly charges: boolean;
  handle(deps: GeminiMethodDeps, request: FastifyRequest, reply: FastifyReply, model: string): Promise<unknown>;
}
