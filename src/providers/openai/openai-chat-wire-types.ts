// The OpenAI chat-completions wire shapes this adapter writes (requests) and the loose
// shapes it reads (responses, chunks). Reads are typed as optional and `unknown`-ish on
// purpose: OpenAI-compatible servers differ, and every field is checked before use.

export interface OpenAIChatTextPart {
  type: 'text';
  text: string;
}
export interface OpenAIChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'low' | 'high' | 'auto' };
}
export interface OpenAIChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}
export interface OpenAIChatFilePart {
  type: 'file';
  file: { file_data: string; filename: string };
}
export type OpenAIChatUserPart = OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatAudioPart | OpenAIChatFilePart;

export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIChatSystemMessage {
  role: 'system';
  content: string;
}
export interface OpenAIChatUserMessage {
  role: 'user';
  content: string | OpenAIChatUserPart[];
  name?: string;
}
export interface OpenAIChatAssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: OpenAIChatToolCall[];
  /** A previous audio answer, by the id OpenAI gave it. */
  audio?: { id: string };
  name?: string;
}
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
export type OpenAIChatMessage = OpenAIChatSystemMessage | OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage;

export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type OpenAIChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type OpenAIChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean; description?: string } };

/** The request body. Optional fields are set only when the canonical request has them. */
export interface OpenAIChatRequestBody {
  model: string;
  messages: OpenAIChatMessage[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  top_a?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  repetition_penalty?: number;
  seed?: number;
  logit_bias?: Record<string, number>;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string[];
  tools?: OpenAIChatTool[];
  tool_choice?: OpenAIChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: OpenAIChatResponseFormat;
  reasoning_effort?: string;
  user?: string;
  prompt_cache_key?: string;
  modalities?: string[];
  audio?: Record<string, unknown>;
  stream?: true;
  stream_options?: { include_usage: true };
  [passThrough: string]: unknown;
}

export interface OpenAIUsageWire {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number } | null;
  /** DeepSeek's spelling of cache reads (its prompt_tokens includes them too). */
  prompt_cache_hit_tokens?: number;
}

export interface OpenAIToolCallWire {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** A message (non-streamed) or a delta (streamed): the same fields, all optional. */
export interface OpenAIMessageWire {
  role?: string;
  /** A string, or parts: `text`, and Mistral's `thinking` (Magistral's reasoning, as text parts). */
  content?: string | Array<{ type?: string; text?: string; thinking?: Array<{ type?: string; text?: string }> }> | null;
  refusal?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  tool_calls?: OpenAIToolCallWire[] | null;
  function_call?: { name?: string; arguments?: string } | null;
  /** Spoken output: whole in a message; in a stream, pieces (the id first, `expires_at` last). */
  audio?: OpenAIAudioWire | null;
  /** Generated images (OpenRouter): each whole, in a message or a delta. */
  images?: OpenAIImageWire[] | null;
}

export interface OpenAIAudioWire {
  id?: unknown;
  data?: unknown;
  transcript?: unknown;
  expires_at?: unknown;
  /** Not OpenAI's: some compatible servers say which format the data is in. */
  format?: unknown;
}

export interface OpenAIImageWire {
  type?: unknown;
  image_url?: { url?: unknown } | null;
  /** OpenRouter numbers the images of a delta. */
  index?: unknown;
}

export interface OpenAIChoiceWire {
  index?: number;
  message?: OpenAIMessageWire | null;
  delta?: OpenAIMessageWire | null;
  finish_reason?: string | null;
}

/** A chat completion or a chunk of one. */
export interface OpenAIChatCompletionWire {
  id?: string;
  model?: string;
  choices?: OpenAIChoiceWire[];
  usage?: OpenAIUsageWire | null;
  /** xAI live search: the URLs the answer cites (streams: on the last chunk). */
  citations?: unknown;
  error?: unknown;
}
