// The canonical request: what every front dialect decodes into and every provider
// adapter encodes from. Only fields the client actually set are present; an absent
// field means "provider default", never a silently invented value.

import type { McpServerChoice } from './server-tools.ts';
import type { TaskRequest } from './task.ts';

export interface CacheControl {
  type: 'ephemeral';
  ttl?: string; // '5m' | '1h'
}

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

export interface ImagePart {
  type: 'image';
  /** https URL or a `data:<media type>;base64,...` URI. */
  url: string;
  detail?: 'low' | 'high' | 'auto';
  cacheControl?: CacheControl;
}

export interface FilePart {
  type: 'file';
  /** Base64 payload (no data: prefix) or a data: URI, when inline. */
  data?: string;
  url?: string;
  mediaType?: string;
  filename?: string;
  cacheControl?: CacheControl;
}

export interface AudioPart {
  type: 'audio';
  data: string; // base64
  format: string; // wav, mp3, ...
  cacheControl?: CacheControl;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as produced by the model. */
  arguments: string;
  /** Opaque provider signature that must be replayed (Gemini thought signatures). */
  signature?: string;
  cacheControl?: CacheControl;
}

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  name?: string;
  content: string | Array<TextPart | ImagePart>;
  isError?: boolean;
  cacheControl?: CacheControl;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
}

export interface RedactedReasoningPart {
  type: 'redacted-reasoning';
  data: string;
}

/**
 * Audio the assistant spoke (OpenAI's `audio` modality), the fold of its `audio-delta`
 * parts. `id` (when the vendor gave one) is what OpenAI takes back, as `audio: {id}`, to
 * replay the turn; `transcript` is what was said, the turn's text for anyone else.
 */
export interface AssistantAudioPart {
  type: 'audio-output';
  id?: string;
  /** Base64 audio bytes, in `format`. */
  data: string;
  transcript: string;
  format?: string;
  /** Unix seconds after which the vendor no longer knows `id`. */
  expiresAt?: number;
}

/** An image the assistant generated: a `data:<media type>;base64,...` URI or an https URL. */
export interface AssistantImagePart {
  type: 'image-output';
  url: string;
}

export type UserContentPart = TextPart | ImagePart | FilePart | AudioPart;
export type AssistantContentPart =
  TextPart | ToolCallPart | ReasoningPart | RedactedReasoningPart | AssistantAudioPart | AssistantImagePart;

export interface SystemMessage {
  role: 'system';
  content: TextPart[];
}
export interface UserMessage {
  role: 'user';
  content: UserContentPart[];
  name?: string;
}
export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContentPart[];
  name?: string;
  refusal?: string;
}
export interface ToolMessage {
  role: 'tool';
  content: ToolResultPart[];
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningConfig {
  enabled?: boolean;
  effort?: ReasoningEffort;
  /** Thinking budget in tokens. */
  maxTokens?: number;
  /** Reason, but do not return the reasoning to the client. */
  exclude?: boolean;
}

export interface ProviderPreferences {
  order?: string[];
  allowFallbacks?: boolean;
  requireParameters?: boolean;
  dataCollection?: 'allow' | 'deny';
  zdr?: boolean;
  only?: string[];
  ignore?: string[];
  quantizations?: string[];
  sort?: 'price' | 'throughput' | 'latency';
  maxPrice?: { prompt?: number; completion?: number; request?: number; image?: number };
}

export interface ModelChoice {
  /** Model id as the client wrote it (`author/name`, possibly with a `:variant`). */
  model: string;
  provider?: ProviderPreferences;
}

export interface SamplingParams {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  topA?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  repetitionPenalty?: number;
  seed?: number;
  logitBias?: Record<string, number>;
}

export interface CanonicalRequest {
  /** Primary model first, then fallbacks in order. Empty means "account default". */
  models: ModelChoice[];
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  sampling: SamplingParams;
  maxOutputTokens?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  promptCacheKey?: string;
  provider?: ProviderPreferences;
  modalities?: string[];
  audio?: Record<string, unknown>;
  user?: string;
  metadata?: Record<string, string>;
  stream: boolean;
  /** Provider-specific fields passed through untouched to providers that accept them. */
  extra: Record<string, unknown>;
  /** Not a conversation (embeddings, images, speech, transcription): `messages` is then empty. */
  task?: TaskRequest;
  /**
   * How many PDFs sent inline (`isInlinePdf`) the front decoder made parts of; absent when
   * none, so that a request without one costs no walk of its messages to find out.
   */
  inlinePdfs?: number;
  /**
   * The web search the gateway runs for this request (pipeline/web-search/), set at
   * admission once it is decided: what its hold adds to the model's worst case.
   */
  webSearch?: WebSearchHold;
  /** The responses dialect's `web_search` / `web_search_preview` tool was offered (the gateway may run it). */
  webSearchTool?: true;
  /**
   * The MCP servers whose tools the gateway runs for this request (docs/tools.md); absent
   * when none, so that a request without costs nothing on the way.
   */
  mcp?: McpServerChoice[];
}

/** What a web search the gateway runs adds to a request's hold: its price and the prompt tokens its results may take. */
export interface WebSearchHold {
  /** nano-USD: the price of the searches it may run. */
  priceNanos: bigint;
  /** An upper bound of the prompt tokens the results add (their UTF-8 bytes). */
  promptTokens: number;
}

/**
 * Every request parameter name (chat-table names), in the order docs list them: what a
 * request uses, what an endpoint honours (`supported_parameters`), what a vendor's table
 * carries. A new one fails to compile until every parameter table (providers/) rules on it.
 */
export const REQUEST_PARAMETERS = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'top_a',
  'frequency_penalty',
  'presence_penalty',
  'repetition_penalty',
  'seed',
  'logit_bias',
  'max_tokens',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'structured_outputs',
  'reasoning',
  'include_reasoning',
  'modalities',
  'audio',
  'prompt_cache_key',
  'user',
] as const;

/** Names of the request parameters a request actually uses, for routing and dropping. */
export type RequestParameter = (typeof REQUEST_PARAMETERS)[number];
