import type { FastifyInstance } from 'fastify';
import { responsesDialect } from '../../front/openai-responses/responses-dialect.ts';
import { registerGenerationRoute } from '../generation-route.ts';
import type { Services } from '../services.ts';

/** POST /v1/responses (and under every prefix): the stateless Responses API. */
export function registerResponsesRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  registerGenerationRoute(app, services, responsesDialect, prefixes.map((p) => `${p}/responses`));
}
