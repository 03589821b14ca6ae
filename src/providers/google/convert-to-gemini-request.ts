import type { CanonicalRequest, RequestParameter } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { UpstreamRequest } from '../types.ts';
import { convertToGeminiContents } from './convert-to-gemini-contents.ts';
import { convertToGeminiSchema } from './convert-to-gemini-schema.ts';
import { convertToGeminiThinkingConfig } from './convert-to-gemini-thinking-config.ts';
import { convertToGeminiToolConfig, convertToGeminiTools } from './convert-to-gemini-tools.ts';
import { GEMINI_SUPPORTED_PARAMETERS } from './gemini-parameters.ts';
import type { GeminiGenerationConfig, GeminiRequestBody } from './gemini-wire-types.ts';

// `POST {base}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for a
// stream, authenticated by `x-goog-api-key`. The base includes the API version
// (`https://generativelanguage.googleapis.com/v1beta`).

export function convertToGeminiRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const provider = endpoint.provider;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof provider.apiKey === 'string' && provider.apiKey.length > 0) headers['x-goog-api-key'] = provider.apiKey;
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  const model = endpoint.upstreamModel.startsWith('models/') ? endpoint.upstreamModel.slice(7) : endpoint.upstreamModel;
  const method = req.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    url: `${stripTrailingSlash(provider.baseUrl)}/models/${model}:${method}`,
    headers,
    body: JSON.stringify(buildGeminiBody(req, endpoint)),
  };
}

/** The body; a parameter travels only when both the adapter (gemini-parameters.ts) and the endpoint take it. */
export function buildGeminiBody(req: CanonicalRequest, endpoint: Endpoint): GeminiRequestBody {
  const accepts = new ParameterGate(endpoint.supportedParameters);
  const prompt = convertToGeminiContents(req.messages);
  const body: GeminiRequestBody = { contents: prompt.contents };
  if (prompt.systemInstruction !== undefined) body.systemInstruction = prompt.systemInstruction;
  const hasTools = req.tools !== undefined && req.tools.length > 0 && accepts.has('tools');
  if (hasTools) body.tools = convertToGeminiTools(req.tools!);
  if (hasTools && req.toolChoice !== undefined && accepts.has('tool_choice')) body.toolConfig = convertToGeminiToolConfig(req.toolChoice);

  const config: GeminiGenerationConfig = {};
  let used = false;
  const s = req.sampling;
  if (s.temperature !== undefined && accepts.has('temperature')) {
    config.temperature = s.temperature;
    used = true;
  }
  if (s.topP !== undefined && accepts.has('top_p')) {
    config.topP = s.topP;
    used = true;
  }
  if (s.topK !== undefined && accepts.has('top_k')) {
    config.topK = s.topK;
    used = true;
  }
  if (s.frequencyPenalty !== undefined && accepts.has('frequency_penalty')) {
    config.frequencyPenalty = s.frequencyPenalty;
    used = true;
  }
  if (s.presencePenalty !== undefined && accepts.has('presence_penalty')) {
    config.presencePenalty = s.presencePenalty;
    used = true;
  }
  if (s.seed !== undefined && accepts.has('seed')) {
    config.seed = s.seed;
    used = true;
  }
  if (req.maxOutputTokens !== undefined && accepts.has('max_tokens')) {
    const limit = endpoint.maxOutputTokens;
    config.maxOutputTokens = limit !== undefined && req.maxOutputTokens > limit ? limit : req.maxOutputTokens;
    used = true;
  }
  // Gemini takes at most five; more are refused upstream (400) rather than silently cut here.
  if (req.stop !== undefined && req.stop.length > 0 && accepts.has('stop')) {
    config.stopSequences = req.stop;
    used = true;
  }
  const format = req.responseFormat;
  if (format !== undefined && format.type !== 'text' && accepts.has('response_format')) {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema' && accepts.has('structured_outputs')) config.responseSchema = convertToGeminiSchema(format.schema);
    used = true;
  }
  // The chat names (`text`, `image`, `audio`) are Gemini's, upper-cased.
  if (req.modalities !== undefined && req.modalities.length > 0 && accepts.has('modalities')) {
    config.responseModalities = req.modalities.map((m) => m.toUpperCase());
    used = true;
  }
  if (req.reasoning !== undefined && accepts.has('reasoning')) {
    const thinking = convertToGeminiThinkingConfig(req.reasoning, endpoint.upstreamModel);
    if (thinking !== undefined) {
      if (!accepts.has('include_reasoning')) delete thinking.includeThoughts;
      config.thinkingConfig = thinking;
      used = true;
    }
  }
  if (used) body.generationConfig = config;
  return body;
}

/** The adapter's own parameters (gemini-parameters.ts), narrowed by the endpoint's. */
class ParameterGate {
  private readonly endpoint: ReadonlySet<RequestParameter>;
  constructor(endpoint: ReadonlySet<RequestParameter>) {
    this.endpoint = endpoint;
  }
  has(name: RequestParameter): boolean {
    return GEMINI_SUPPORTED_PARAMETERS.has(name) && this.endpoint.has(name);
  }
}

function stripTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 47 /* / */) end--;
  return end === url.length ? url : url.slice(0, end);
}
