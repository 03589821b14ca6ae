import type { CanonicalRequest, Message } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { invalidType, invalidValue, isObject, missingParameter, type JsonObject } from '../shared/read-fields.ts';
import { decodeGeminiContents, decodeGeminiSystem } from './decode-gemini-contents.ts';
import { decodeGenerationConfig } from './decode-gemini-generation-config.ts';
import { decodeGeminiTools } from './decode-gemini-tools.ts';

// The body of POST /v1beta/models/{model}:generateContent (and :streamGenerateContent) →
// CanonicalRequest. The model and whether to stream come from the path, not the body.
// `safetySettings` and `labels` are accepted and ignored: no provider but Google has them
// (and a Gemini upstream keeps its defaults). `cachedContent` names a cache inside Google's
// API, which other providers cannot read: a clear 400. The gateway's own routing fields
// (`models`, `fallbacks`, `provider`) are read as on every endpoint, the path's model first.

export interface GeminiTarget {
  /** The model as the path names it (a catalog id, an alias, a bare name). */
  model: string;
  stream: boolean;
}

export interface GeminiDecodeOptions {
  /** countTokens: `contents` may be empty (an empty prompt counts 0). */
  allowEmptyContents?: boolean;
}

export function decodeGeminiRequest(body: unknown, target: GeminiTarget, opts: GeminiDecodeOptions = {}): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');
  const raw = body.contents;
  if (raw === undefined || raw === null) {
    if (opts.allowEmptyContents !== true) throw missingParameter('contents', 'must be an array of at least 1 Content');
  } else if (!Array.isArray(raw)) throw invalidType('contents', 'an array of Content objects', raw);
  else if (raw.length === 0 && opts.allowEmptyContents !== true) throw invalidValue('contents', 'must contain at least 1 Content');
  const cached = body.cachedContent;
  if (cached !== undefined && cached !== null) {
    throw new GatewayError(
      'unsupported_content',
      "Unsupported 'cachedContent': a context cache lives inside Google's API, which the gateway cannot carry to every provider; send the contents instead.",
      { param: 'cachedContent' },
    );
  }

  const messages: Message[] = [];
  const system = decodeGeminiSystem(body.systemInstruction ?? body.system_instruction);
  if (system !== null) messages.push(system);
  if (Array.isArray(raw)) decodeGeminiContents(raw, messages);

  const req: CanonicalRequest = {
    models: decodeModelList(routingFields(body, target.model)),
    messages,
    sampling: {},
    stream: target.stream,
    extra: {},
  };
  const { tools, toolChoice, webSearch } = decodeGeminiTools(body);
  if (tools !== undefined) req.tools = tools;
  if (webSearch) req.webSearchTool = true;
  if (toolChoice !== undefined) req.toolChoice = toolChoice;
  decodeGenerationConfig(body, req);
  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  return req;
}

/** The path's model first, then the body's `models` and `fallbacks` (a body `model` is not read: the path says it). */
function routingFields(body: JsonObject, model: string): JsonObject {
  return { model, models: body.models, fallbacks: body.fallbacks };
}
