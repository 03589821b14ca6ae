import Fastify, { type FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { BODY_LIMIT } from './normalize-error.ts';
import { chatDialect } from '../front/openai-chat/chat-dialect.ts';
import { dialectErrorHandler } from './generation-route.ts';
import { registerChatCompletionsRoute } from './routes/chat-completions-route.ts';
import { registerKeyRoute } from './routes/key-route.ts';
import { registerKeysRoutes } from './routes/keys-route.ts';
import { registerGenerationLookupRoute } from './routes/generation-lookup-route.ts';
import { registerMessagesRoute } from './routes/messages-route.ts';
import { registerModelsRoute } from './routes/models-route.ts';
import { registerResponsesRoute } from './routes/responses-route.ts';
import { registerModelEndpointsRoute } from './routes/model-endpoints-route.ts';
import { registerHealthRoutes } from './routes/health-routes.ts';
import type { Services } from './services.ts';

/** Every endpoint is served under both prefixes. */
export const API_PREFIXES = ['/v1', '/api/v1'] as const;

export function buildApp(services: Services): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    keepAliveTimeout: 65_000,
    // Request ids come from the pipeline (generation ids); Fastify's own are not needed.
    genReqId: () => '',
  });

  // Every POST body is JSON whatever its content type (curl -d sends form-encoded):
  // one parser, so a malformed body is our invalid_json error in the dialect's shape.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJsonBody);

  // Outside the dialect routes, errors take the spec's record shape (the chat dialect's).
  const renderError = dialectErrorHandler(chatDialect);
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => {
    renderError(new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`), request, reply);
  });

  registerHealthRoutes(app, services);
  registerChatCompletionsRoute(app, services, API_PREFIXES);
  registerModelsRoute(app, services, API_PREFIXES);
  registerModelEndpointsRoute(app, services, API_PREFIXES);
  registerKeyRoute(app, services, API_PREFIXES);
  registerKeysRoutes(app, services, API_PREFIXES);
  registerGenerationLookupRoute(app, services, API_PREFIXES);
  registerMessagesRoute(app, services, API_PREFIXES);
  registerResponsesRoute(app, services, API_PREFIXES);
  return app;
}

function parseJsonBody(_req: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0) return done(null, undefined);
  try {
    done(null, JSON.parse(text));
  } catch (err) {
    done(new GatewayError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`));
  }
}
