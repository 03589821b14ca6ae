import type { FastifyInstance } from 'fastify';
import { embeddingsDialect } from '../../front/openai-embeddings/embeddings-dialect.ts';
import { registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';

/** POST /v1/embeddings (and under every prefix): the same admission, holds and settlement as chat. */
export function registerEmbeddingsRoute(app: FastifyInstance, deps: GenerationRouteDeps, prefixes: readonly string[]): void {
  registerGenerationRoute(
    app,
    deps,
    embeddingsDialect,
    prefixes.map((p) => `${p}/embeddings`),
  );
}
