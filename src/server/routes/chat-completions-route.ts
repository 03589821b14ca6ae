import type { FastifyInstance } from 'fastify';
import { chatDialect } from '../../front/openai-chat/chat-dialect.ts';
import { registerGenerationRoute } from '../generation-route.ts';
import type { Services } from '../services.ts';

/** POST /v1/chat/completions (and under every prefix). */
export function registerChatCompletionsRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  registerGenerationRoute(app, services, chatDialect, prefixes.map((p) => `${p}/chat/completions`));
}
