import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalog } from '../../../catalog/catalog.ts';
import { encodeGeminiModel } from '../../../front/gemini-generate/encode-gemini-models.ts';
import { geminiSseDialect, readGeminiKey } from '../../../front/gemini-generate/gemini-dialect.ts';
import { GatewayError } from '../../../errors/gateway-error.ts';
import { overheadClock } from '../../gateway-overhead.ts';
import { dialectErrorHandler, generationAccess, type GenerationRouteDeps } from '../../generation-route.ts';
import { access, requestAuth } from '../../route-access.ts';
import type { ModelAccess } from '../../../catalog/model-access.ts';
import { modelForKey, modelsForKey, presentedAccess, type KeyModelsDeps } from '../../key-models.ts';
import { countTokens } from './gemini-count-tokens-method.ts';
import { batchEmbedContents, embedContent } from './gemini-embed-methods.ts';
import { generateContent, streamGenerateContent } from './gemini-generate-method.ts';
import { geminiTarget, type GeminiMethod } from './gemini-method.ts';
import { GEMINI_LIST_SCHEMA, GEMINI_METHOD_SCHEMA, GEMINI_MODEL_SCHEMA } from './gemini-route-schemas.ts';
import type { InForce } from '../../wiring/in-force.ts';
import type { Telemetry } from '../../../observability/telemetry.ts';

/** What gemini-routes.ts uses of the services (handed out by build-app.ts). */
export type GeminiRoutesDeps = GenerationRouteDeps &
  KeyModelsDeps & {
    inForce: Pick<InForce, 'catalog' | 'config'>;
    telemetry: Telemetry;
  };

// Gemini's own API (docs/gemini-api.md), for every model of the catalog:
//   POST /v1beta/models/{model}:{method}   the methods below (gemini-method.ts reads the path);
//                                          also under /v1 (and /api/v1), the @google/genai
//                                          SDK's default version (POST /v1/models/* is no
//                                          other route's)
//   GET  /v1beta/models                    the catalog in Google's model-list shape, paged
//   GET  /v1beta/models/{model}            one model (under /v1 these are OpenAI's list)
// Every answer and error is in Google's shape (render-gemini-error.ts). Keys come from
// `x-goog-api-key`, `?key=` or `Authorization: Bearer` (readGeminiKey).

export const GEMINI_PREFIX = '/v1beta';
/** Where the POST methods are served: Gemini's versions whose paths no other route takes. */
const METHOD_PREFIXES: readonly string[] = [GEMINI_PREFIX, '/v1', '/api/v1'];

/** The POST methods served, by name. Adding one is a file exporting a GeminiMethod and a line here. */
const METHODS: ReadonlyMap<string, GeminiMethod> = new Map(
  [generateContent, streamGenerateContent, countTokens, embedContent, batchEmbedContents].map((m) => [m.name, m]),
);

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export function registerGeminiRoutes(app: FastifyInstance, deps: GeminiRoutesDeps): void {
  const errorHandler = dialectErrorHandler(geminiSseDialect);
  const declared = generationAccess(deps, geminiSseDialect, {
    // Only a model call is refused before its body for a key that cannot pay; counting is free.
    refuseBeforeBody: (request) => METHODS.get(geminiTarget(request).method)?.charges === true,
    note: '`:generateContent`, `:streamGenerateContent`, `:countTokens`, `:embedContent`, `:batchEmbedContents`; key also from `x-goog-api-key` or `?key=`',
  });
  const options = { errorHandler, schema: GEMINI_METHOD_SCHEMA, ...declared, ...overheadClock(deps.telemetry) };
  for (const prefix of METHOD_PREFIXES)
    app.post(`${prefix}/models/*`, options, async (request, reply) => {
      const { model, method } = geminiTarget(request);
      const handler = METHODS.get(method);
      if (handler === undefined) {
        const shown = method.length > 64 ? `${method.slice(0, 64)}...` : method;
        const served = [...METHODS.keys()].map((m) => `:${m}`).join(', ');
        throw new GatewayError(
          'not_found',
          method === ''
            ? `POST ${prefix}/models/{model} needs a method after the model: ${served}.`
            : `No method "${shown}" on ${prefix}/models; this gateway serves ${served}.`,
        );
      }
      if (model.length === 0) throw new GatewayError('not_found', `POST ${prefix}/models/{model}:${method} needs a model.`);
      return handler.handle(deps, request, reply, model);
    });

  // The model list: public unless `server.public_models: false`, as GET /v1/models.
  const keyed = deps.inForce.config.server.publicModels === false;
  const listAccess = keyed ? access('key', { readKey: readGeminiKey, keyHeaders: 'google' }) : access('none');
  const list = { errorHandler, ...listAccess };
  // A valid key with an allowlist sees only what it may use (key-models.ts).
  const accessOf = (request: FastifyRequest): Promise<ModelAccess | null> =>
    presentedAccess(deps, request, readGeminiKey, keyed ? requestAuth(request) : null);
  app.get(`${GEMINI_PREFIX}/models`, { ...list, schema: GEMINI_LIST_SCHEMA }, async (request) =>
    listModels(deps.inForce.catalog, request.query as Record<string, unknown>, await accessOf(request)),
  );
  app.get(`${GEMINI_PREFIX}/models/*`, { ...list, schema: GEMINI_MODEL_SCHEMA }, async (request) => {
    const { model } = geminiTarget(request);
    const allowed = await accessOf(request);
    if (model === '') return listModels(deps.inForce.catalog, request.query as Record<string, unknown>, allowed);
    const found = modelForKey(deps.inForce.catalog, model, allowed);
    if (found === undefined)
      throw new GatewayError(
        'not_found',
        `models/${model} is not found in this gateway's catalog; GET ${GEMINI_PREFIX}/models lists them.`,
        { param: 'model' },
      );
    return encodeGeminiModel(found);
  });
}

/** A page of the catalog: `pageSize` (default 50, at most 1000) models from `pageToken` (an offset this list handed out). */
function listModels(
  catalog: Catalog,
  query: Record<string, unknown>,
  allowed: ModelAccess | null,
): { models: unknown[]; nextPageToken?: string } {
  const size = pageNumber(query.pageSize, 'pageSize', DEFAULT_PAGE_SIZE);
  const from = pageNumber(query.pageToken, 'pageToken', 0);
  const models = modelsForKey(catalog, allowed);
  const page = models.slice(from, from + Math.min(size === 0 ? DEFAULT_PAGE_SIZE : size, MAX_PAGE_SIZE)).map(encodeGeminiModel);
  const next = from + page.length;
  return next < models.length ? { models: page, nextPageToken: String(next) } : { models: page };
}

function pageNumber(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw)) {
    throw new GatewayError('invalid_parameter', `Invalid value for '${name}': expected a whole number.`, { param: name });
  }
  return Number(raw);
}
