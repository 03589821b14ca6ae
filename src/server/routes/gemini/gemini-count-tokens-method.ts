import type { FastifyReply, FastifyRequest } from 'fastify';
import { countGeminiTokens, decodeCountTokensRequest } from '../../../front/gemini-generate/count-gemini-tokens.ts';
import type { GeminiMethod } from './gemini-method.ts';
import { requestAuth } from '../../route-access.ts';
import { keyAccess } from '../../../auth/key-access.ts';
import { modelForKey, unknownModel } from '../../key-models.ts';
import type { InForce } from '../../wiring/in-force.ts';

/** What gemini-count-tokens-method.ts uses of the services (handed out by build-app.ts). */
export interface GeminiCountTokensMethodDeps {
  inForce: Pick<InForce, 'catalog'>;
}

// countTokens: the gateway's own count of the prompt (count-gemini-tokens.ts), for a model
// of the catalog (an unknown one is Google's 404), without any upstream call or charge.

export const countTokens: GeminiMethod = {
  name: 'countTokens',
  charges: false,
  async handle(deps: GeminiCountTokensMethodDeps, request: FastifyRequest, _reply: FastifyReply, model: string): Promise<unknown> {
    const req = decodeCountTokensRequest(request.body, model);
    if (modelForKey(deps.inForce.catalog, model, keyAccess(requestAuth(request))) === undefined) throw unknownModel(model);
    return countGeminiTokens(req);
  },
};
