import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { countMessageTokens, decodeCountTokensRequest } from '../../front/anthropic-messages/count-message-tokens.ts';
import { messagesDialect } from '../../front/anthropic-messages/messages-dialect.ts';
import { access, requestAuth } from '../route-access.ts';
import { keyAccess } from '../../auth/key-access.ts';
import { modelForKey, unknownModel } from '../key-models.ts';
import { dialectErrorHandler, registerGenerationRoute, type GenerationRouteDeps } from '../generation-route.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What messages-route.ts uses of the services (handed out by build-app.ts). */
export type MessagesRouteDeps = GenerationRouteDeps & {
  inForce: Pick<InForce, 'catalog'>;
};

/**
 * POST /v1/messages and /v1/messages/count_tokens under every prefix, and again under
 * `<prefix>/v1`: the spec lets clients configure the base address with or without `/v1`,
 * and Anthropic SDKs append `/v1/messages` to whatever they are given.
 */
export function registerMessagesRoute(app: FastifyInstance, deps: MessagesRouteDeps, prefixes: readonly string[]): void {
  const bases = prefixes.flatMap((p) => [p, `${p}/v1`]);
  registerGenerationRoute(
    app,
    deps,
    messagesDialect,
    bases.map((b) => `${b}/messages`),
  );

  // Authenticated by the onRequest hook, from the headers, before the body is read.
  const countTokens = async (request: FastifyRequest, _reply: FastifyReply): Promise<unknown> => {
    const req = decodeCountTokensRequest(request.body);
    // The model must exist, as for a message; an absent one means the account default.
    const model = req.models[0]?.model;
    if (model !== undefined && modelForKey(deps.inForce.catalog, model, keyAccess(requestAuth(request))) === undefined)
      throw unknownModel(model);
    return countMessageTokens(req);
  };
  const errorHandler = dialectErrorHandler(messagesDialect);
  const declared = access('key', { readKey: messagesDialect.readKey, keyHeaders: messagesDialect.keyHeaders, maxBodyBytes: 'server' });
  for (const base of bases) app.post(`${base}/messages/count_tokens`, { errorHandler, ...declared }, countTokens);
}
