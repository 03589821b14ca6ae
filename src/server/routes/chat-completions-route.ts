import type { FastifyInstance } from 'fastify';
import { chatDialect } from '../../front/openai-chat/chat-dialect.ts';
import { registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';

/** POST /v1/chat/completions (and under every prefix). */
export function registerChatCompletionsRoute(app: FastifyInstance, deps: GenerationRouteDeps, prefixes: readonly string[]): void {
  registerGenerationRoute(
    app,
    deps,
    chatDialect,
    prefixes.map((p) => `${p}/chat/completions`),
  );
}
