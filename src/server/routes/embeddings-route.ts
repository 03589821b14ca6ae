import type { FastifyInstance } from 'fastify';
import { embeddingsDialect } from '../../front/openai-embeddings/embeddings-dialect.ts';
import { registerGenerationRoute } from '../generation-route.ts';
import type { Services } from '../services.ts';

/** POST /v1/embeddings (and under every prefix): the same admission, holds and settlement as chat. */
export function registerEmbeddingsRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  registerGenerationRoute(app, services, embeddingsDialect, prefixes.map((p) => `${p}/embeddings`));
}
