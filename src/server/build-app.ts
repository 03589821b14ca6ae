import { linkMailer, registerEmailSignInRoutes } from './dashboard/email-sign-in-routes.ts';
import { registerOidcRoutes } from './dashboard/oidc-routes.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { installConnectionGuards, serverOptions } from './connection-guards.ts';
import { installJsonBodyParser } from './body/parse-json-body.ts';
import { installSingleQueryValues } from './single-query-values.ts';
import { chatDialect } from '../front/openai-chat/chat-dialect.ts';
import { geminiSseDialect } from '../front/gemini-generate/gemini-dialect.ts';
import { dialectErrorHandler } from './generation-route.ts';
import { registerChatCompletionsRoute } from './routes/chat-completions-route.ts';
import { registerKeyRoute } from './routes/key-route.ts';
import { registerKeysRoutes } from './routes/keys-route.ts';
import { registerWebhookRoutes } from './routes/webhooks-route.ts';
import { registerByokRoutes } from './routes/byok-routes.ts';
import { installSpendEvents } from './webhooks/spend-events.ts';
import { registerGenerationLookupRoute } from './routes/generation-lookup-route.ts';
import { registerMessagesRoute } from './routes/messages-route.ts';
import { registerModelsRoute } from './routes/models-route.ts';
import { registerResponsesRoute } from './routes/responses-route.ts';
import { registerEmbeddingsRoute } from './routes/embeddings-route.ts';
import { registerGeminiRoutes } from './routes/gemini/gemini-routes.ts';
import { registerImagesRoutes } from './routes/images-route.ts';
import { registerAudioRoutes } from './routes/audio-routes.ts';
import { registerModelEndpointsRoute } from './routes/model-endpoints-route.ts';
import { registerAdminRoutes } from './routes/admin/register-admin-routes.ts';
import { registerOpenApi, registerOpenApiRoute } from './openapi/register-openapi.ts';
import { STRICT_AJV_OPTIONS } from './openapi/strict-validation.ts';
import { registerHealthRoutes } from './routes/health-routes.ts';
import { countHttpRequests, registerMetricsRoute } from './routes/metrics-route.ts';
import type { Services } from './services.ts';
import { baseStripper, registerDashboard } from './dashboard/serve-dashboard.ts';
import { installSessionCookieAuth } from './dashboard/session-cookie-auth.ts';
import { registerSessionRoutes } from './dashboard/session-routes.ts';
import { installRouteAccess } from './route-access.ts';
import { registerPlaygroundKeyRoute } from './dashboard/playground-key-route.ts';
import { registerMcpEndpoint } from './mcp-endpoint/mcp-endpoint-route.ts';
import { registryToolSource } from './mcp-endpoint/registry-tool-source.ts';
import { registerMcpServersRoutes } from './routes/mcp-servers-route.ts';

/** Every endpoint is served under both prefixes. */
export const API_PREFIXES = ['/v1', '/api/v1'] as const;

/** Paths of Gemini's own API (`/v1beta/...`, the SDK's uploads under `/upload/v1beta/...`), under any base path. */
const GEMINI_PATH = /^[^?]*\/(?:upload\/)?v1beta(?:\/|\?|$)/;

/**
 * The HTTP app over the services: each route module takes the members it uses (its `…Deps`
 * type says which), so its signature names its dependencies.
 */
export function buildApp(services: Services): FastifyInstance {
  const { inForce, stores, auth, sessions, byok, webhooks, members, reservations, settlements, telemetry, inFlight, now } = services;
  const config = inForce.config;
  const basePath = config.server.basePath ?? '';
  const rewriteUrl = baseStripper(basePath);
  const app = Fastify({
    ...(rewriteUrl === undefined ? {} : { rewriteUrl }),
    // Only a configured proxy's X-Forwarded-Proto makes a request https (the session cookie's Secure flag) and its X-Forwarded-For the client address.
    ...(config.server.trustProxy === undefined ? {} : { trustProxy: config.server.trustProxy }),
    ...serverOptions(config.server),
    logger: false,
    return503OnClosing: true,
    // Request ids come from the pipeline (generation ids); Fastify's own are not needed.
    genReqId: () => '',
    // The strict routes' validator (openapi/strict-validation.ts): no coercion, no removal.
    ajv: STRICT_AJV_OPTIONS,
  });
  installConnectionGuards(app, config.server);
  installSingleQueryValues(app);
  countHttpRequests(app, { inForce, telemetry });

  installJsonBodyParser(app);

  // Outside the dialect routes, errors take the spec's record shape (the chat dialect's),
  // except under Gemini's own prefixes, where a Google client expects Google's shape.
  const renderChatError = dialectErrorHandler(chatDialect);
  const renderGeminiError = dialectErrorHandler(geminiSseDialect);
  const renderError: typeof renderChatError = (error, request, reply) =>
    (GEMINI_PATH.test(request.url) ? renderGeminiError : renderChatError)(error, request, reply);
  app.setErrorHandler(renderError);
  installSpendEvents(app, { inForce, stores, webhooks, now });
  app.setNotFoundHandler((request, reply) => {
    renderError(new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`), request, reply);
  });

  // The dashboard's session cookie stands for a key on /api/v1 (before the routes' own auth hooks).
  installSessionCookieAuth(app, config.server.publicOrigin);
  // Every route declares its access; one hook enforces it before the body is read.
  installRouteAccess(app, auth, config.server.bodyLimitBytes);
  registerDashboard(app, basePath);

  // The OpenAPI document sees the routes registered in the plugin after it.
  registerOpenApi(app);
  // The model-calling routes share one handler (generation-route.ts) and its collaborators.
  const generation = { inForce, settlements, telemetry, inFlight, stores, now };
  // One SMTP transport per gateway (null without `smtp:`): the email sign-in and the members' invitations.
  const mailer = linkMailer({ inForce, stores, now });
  app.register(async (api) => {
    registerHealthRoutes(api, { inForce, settlements, inFlight, lease: services.lease, fleet: services.fleet });
    registerChatCompletionsRoute(api, generation, API_PREFIXES);
    registerModelsRoute(api, { inForce, auth }, API_PREFIXES);
    registerModelEndpointsRoute(api, { inForce, health: services.health, breakers: services.breakers }, API_PREFIXES);
    registerKeyRoute(api, { stores, tiers: services.tiers, now }, API_PREFIXES);
    registerKeysRoutes(api, { stores, accountService: services.accountService, auth, reservations, webhooks, now }, API_PREFIXES);
    registerWebhookRoutes(api, { inForce, stores, webhooks, webhookSecrets: services.webhookSecrets }, API_PREFIXES);
    registerMcpServersRoutes(api, { inForce, stores, now }, API_PREFIXES);
    registerMcpEndpoint(
      api,
      { inForce, inFlight, stores, now },
      registryToolSource(() => inForce.mcp),
    );
    registerByokRoutes(api, { inForce, stores, byok }, API_PREFIXES);
    registerGenerationLookupRoute(api, { stores }, API_PREFIXES);
    registerMessagesRoute(api, generation, API_PREFIXES);
    registerResponsesRoute(api, generation, API_PREFIXES);
    registerEmbeddingsRoute(api, generation, API_PREFIXES);
    registerGeminiRoutes(api, { ...generation, auth });
    registerImagesRoutes(api, generation, API_PREFIXES);
    registerAudioRoutes(api, generation, API_PREFIXES);
    registerAdminRoutes(
      api,
      {
        inForce,
        stores,
        accountService: services.accountService,
        auth,
        reservations,
        webhooks,
        members,
        mailer,
        now,
        health: services.health,
        breakers: services.breakers,
        retention: services.retention,
      },
      API_PREFIXES,
    );
    registerSessionRoutes(api, { inForce, auth, sessions, byok, cli: services.cli });
    registerEmailSignInRoutes(api, { inForce, stores, auth, sessions, byok, mailer, now });
    registerOidcRoutes(api, { inForce, stores, sessions, auth, members, now });
    registerPlaygroundKeyRoute(api, { stores, accountService: services.accountService, auth, reservations });
    registerOpenApiRoute(api, API_PREFIXES);
    registerMetricsRoute(api, { inForce, telemetry });
  });
  return app;
}
