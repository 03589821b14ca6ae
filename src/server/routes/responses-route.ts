import type { FastifyInstance } from 'fastify';
import { responsesDialect } from '../../front/openai-responses/responses-dialect.ts';
import { registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';

/** POST /v1/responses (and under every prefix): the stateless Responses API. */
export function registerResponsesRoute(app: FastifyInstance, deps: GenerationRouteDeps, prefixes: readonly string[]): void {
  registerGenerationRoute(
    app,
    deps,
    responsesDialect,
    prefixes.map((p) => `${p}/responses`),
  );
}
