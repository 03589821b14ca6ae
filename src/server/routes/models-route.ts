import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toModelRecord } from '../../catalog/encode-model-record.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { ModelInfo } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { readAnyApiKey } from '../request-helpers.ts';
import { access, requestAuth } from '../route-access.ts';
import type { ModelAccess } from '../../catalog/model-access.ts';
import { modelForKey, presentedAccess, type KeyModelsDeps } from '../key-models.ts';
import type { InForce } from '../wiring/in-force.ts';

/** What models-route.ts uses of the services (handed out by build-app.ts). */
export type ModelsRouteDeps = KeyModelsDeps & {
  inForce: Pick<InForce, 'catalog' | 'config'>;
};

/**
 * GET /v1/models: the catalog, serialized once (per config generation); GET /v1/models/{id}: one model's
 * record. The id keeps its slash, sent as is (`/v1/models/openai/gpt-4.1`) or encoded
 * (`/v1/models/openai%2Fgpt-4.1`, what the `openai` client sends); any name a request's
 * `model` may be (aliases, `:variants`) finds its model, whose record is returned.
 *
 * Public by default, like OpenRouter's model list: no key is needed, and a key sent is not
 * looked at (a wrong one does not turn the list into a 401). `server.public_models: false`
 * asks for a valid key (bearer or `x-api-key`), which makes the list an authentication
 * check again; `GET /v1/key` is one either way. A valid key whose account or own allowlist
 * restricts the models (catalog/model-access.ts) sees only what it may use, and any other
 * model is not found, as one the catalog lacks.
 */
interface Serialized {
  body: string;
  records: Map<ModelInfo, string>;
  /** Lists filtered by output modality, by the query's text (a handful of distinct values in practice). */
  filtered: Map<string, string>;
}

/** At most this many distinct filters are kept serialized per catalog; beyond, each is built per request. */
const MAX_FILTERS_KEPT = 32;

/**
 * OpenRouter's `output_modalities` filter: a comma-separated list of `text`, `image`, `audio`,
 * `embeddings` (a model matches when it outputs any of them), or `all`.
 */
function filteredBody(catalog: Catalog, s: Serialized, wanted: string, access: ModelAccess | null = null): string {
  const kept = access === null ? s.filtered.get(wanted) : undefined;
  if (kept !== undefined) return kept;
  const names = wanted
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !OUTPUT_MODALITIES.has(n));
  if (unknown.length > 0) {
    throw new GatewayError(
      'invalid_parameter',
      `Unknown output modality "${unknown[0]}": expected a comma-separated list of ${[...OUTPUT_MODALITIES].join(', ')}.`,
      { param: 'output_modalities' },
    );
  }
  const all = names.includes('all');
  const parts: string[] = [];
  for (const m of catalog.models) {
    if (access !== null && !access.allowsModel(m)) continue;
    const record = s.records.get(m);
    if (record !== undefined && (all || toModelRecord(m).architecture.output_modalities.some((o) => names.includes(o)))) parts.push(record);
  }
  const body = `{"object":"list","data":[${parts.join(',')}]}`;
  if (access === null && s.filtered.size < MAX_FILTERS_KEPT) s.filtered.set(wanted, body);
  return body;
}

/** The list as a key with an allowlist sees it (built per request: the records are serialized already). */
function allowedBody(catalog: Catalog, s: Serialized, access: ModelAccess): string {
  const parts: string[] = [];
  for (const m of catalog.models) {
    const record = s.records.get(m);
    if (record !== undefined && access.allowsModel(m)) parts.push(record);
  }
  return `{"object":"list","data":[${parts.join(',')}]}`;
}

const OUTPUT_MODALITIES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'embeddings', 'all']);

export function registerModelsRoute(app: FastifyInstance, deps: ModelsRouteDeps, prefixes: readonly string[]): void {
  // Serialized once per catalog: a config reload brings a new catalog, serialized at its first request.
  const serialized = new WeakMap<Catalog, Serialized>();
  const forCatalog = (catalog: Catalog): Serialized => {
    let s = serialized.get(catalog);
    if (s === undefined) {
      const records = new Map<ModelInfo, string>();
      for (const m of catalog.models) records.set(m, JSON.stringify(toModelRecord(m)));
      s = { body: JSON.stringify({ object: 'list', data: catalog.models.map(toModelRecord) }), records, filtered: new Map() };
      serialized.set(catalog, s);
    }
    return s;
  };
  // Public unless `server.public_models: false` (read at start: a reload does not change a route's access).
  const keyed = deps.inForce.config.server.publicModels === false;
  const declared = keyed ? access('key', { readKey: readAnyApiKey, keyHeaders: 'bearer-or-x-api-key' }) : access('none');
  const accessOf = (request: FastifyRequest): Promise<ModelAccess | null> =>
    presentedAccess(deps, request, readAnyApiKey, keyed ? requestAuth(request) : null);

  for (const prefix of prefixes) {
    app.get(`${prefix}/models`, declared, async (request, reply) => {
      reply.header('content-type', 'application/json; charset=utf-8');
      const catalog = deps.inForce.catalog;
      const s = forCatalog(catalog);
      const allowed = await accessOf(request);
      const wanted = (request.query as { output_modalities?: string }).output_modalities;
      if (wanted !== undefined) return filteredBody(catalog, s, wanted, allowed);
      return allowed === null ? s.body : allowedBody(catalog, s, allowed);
    });
    // After the static and `/:author/:slug/endpoints` routes: the router tries those first.
    app.get(`${prefix}/models/*`, declared, async (request, reply) => {
      const name = (request.params as { '*': string })['*'];
      reply.header('content-type', 'application/json; charset=utf-8');
      const catalog = deps.inForce.catalog;
      const s = forCatalog(catalog);
      const allowed = await accessOf(request);
      if (name === '') return allowed === null ? s.body : allowedBody(catalog, s, allowed); // `/v1/models/`: the list
      const model = modelForKey(catalog, name, allowed);
      const record = model === undefined ? undefined : s.records.get(model);
      if (record === undefined)
        throw new GatewayError('not_found', `No model "${name}" in this gateway's catalog; GET /v1/models lists them.`, { param: 'model' });
      return record;
    });
  }
}
