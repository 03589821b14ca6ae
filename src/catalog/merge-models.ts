import type { RequestParameter } from '../canonical/request.ts';
import type { EndpointInput, ModelInput } from '../config/types.ts';
import type { BuiltinEndpoint, BuiltinModel } from './builtin/builtin-types.ts';
import type { Capability, ModelKind, PricingSpec } from './types.ts';

/** A model before compiling: built-in data with the config's changes applied. */
export interface ModelDraft {
  id: string;
  kind: ModelKind;
  name: string;
  description: string;
  contextLength: number | undefined;
  maxOutputTokens: number | undefined;
  capabilities: Capability[];
  aliases: string[];
  created: number;
  endpoints: EndpointDraft[];
  enabled: boolean;
  /** `models[i]` when the config mentions the model: problems with it are worth a warning. */
  path: string | undefined;
}

export interface EndpointDraft {
  provider: string;
  model: string;
  pricing: PricingSpec;
  contextLength?: number;
  maxOutputTokens?: number;
  quantization?: string;
  dataCollection: 'allow' | 'deny';
  zdr: boolean;
  supportedParameters?: readonly RequestParameter[];
  excludeParameters?: readonly RequestParameter[];
  moderated?: boolean;
  /** `models[i].endpoints[j]` for endpoints written in the config. */
  path: string | undefined;
}

/** Config models with a built-in id override the fields they give (endpoints are replaced); the rest are new. */
export function mergeModels(builtins: readonly BuiltinModel[], inputs: readonly ModelInput[]): ModelDraft[] {
  const drafts = new Map<string, ModelDraft>();
  for (const b of builtins) drafts.set(b.id, fromBuiltin(b));
  inputs.forEach((input, i) => {
    const path = `models[${i}]`;
    const base = drafts.get(input.id);
    const endpoints = input.endpoints?.map((e, j) => fromInput(e, input.id, `${path}.endpoints[${j}]`));
    if (base !== undefined) {
      drafts.set(input.id, {
        ...base,
        kind: input.kind ?? base.kind,
        name: input.name ?? base.name,
        description: input.description ?? base.description,
        contextLength: input.contextLength ?? base.contextLength,
        capabilities: input.capabilities ?? base.capabilities,
        aliases: input.aliases ?? base.aliases,
        created: input.created ?? base.created,
        endpoints: endpoints ?? base.endpoints,
        enabled: input.enabled ?? base.enabled,
        path,
      });
    } else {
      drafts.set(input.id, {
        id: input.id,
        kind: input.kind ?? 'chat',
        name: input.name ?? input.id,
        description: input.description ?? '',
        contextLength: input.contextLength,
        maxOutputTokens: undefined,
        capabilities: input.capabilities ?? ['text', 'streaming'],
        aliases: input.aliases ?? [],
        created: input.created ?? 0,
        endpoints: endpoints ?? [],
        enabled: input.enabled ?? true,
        path,
      });
    }
  });
  return [...drafts.values()];
}

function fromBuiltin(b: BuiltinModel): ModelDraft {
  return {
    id: b.id,
    kind: b.kind ?? 'chat',
    name: b.name,
    description: b.description,
    contextLength: b.contextLength,
    maxOutputTokens: b.maxOutputTokens,
    // Copies: catalogs hand these arrays out, and the built-in data must stay as written.
    capabilities: [...b.capabilities],
    aliases: [...b.aliases],
    created: b.created,
    endpoints: b.endpoints.map(fromBuiltinEndpoint),
    enabled: true,
    path: undefined,
  };
}

function fromBuiltinEndpoint(e: BuiltinEndpoint): EndpointDraft {
  return { ...e, pricing: { ...e.pricing }, zdr: e.zdr ?? false, path: undefined };
}

function fromInput(e: EndpointInput, modelId: string, path: string): EndpointDraft {
  const draft: EndpointDraft = {
    provider: e.provider,
    model: e.model ?? modelId.slice(modelId.indexOf('/') + 1),
    pricing: e.pricing,
    // Unknown servers promise nothing about retention unless the operator says so.
    dataCollection: e.dataCollection ?? 'allow',
    zdr: e.zdr ?? false,
    path,
  };
  if (e.contextLength !== undefined) draft.contextLength = e.contextLength;
  if (e.maxOutputTokens !== undefined) draft.maxOutputTokens = e.maxOutputTokens;
  if (e.quantization !== undefined) draft.quantization = e.quantization;
  if (e.supportedParameters !== undefined) draft.supportedParameters = e.supportedParameters;
  if (e.moderated !== undefined) draft.moderated = e.moderated;
  return draft;
}
