// The Anthropic Messages wire (reference/wire-formats.md §2), as far as this adapter writes
// or reads it. Response-side types are loose (`?`, `unknown`): the decoder checks what it reads.

export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string };

export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicDocumentSource;
  title?: string;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock = AnthropicTextBlock | AnthropicToolUseBlock | AnthropicThinkingBlock | AnthropicRedactedThinkingBlock;
export type AnthropicBlock = AnthropicUserBlock | AnthropicAssistantBlock;

/** User turns hold user blocks and assistant turns assistant blocks; the encoder keeps them apart. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicThinkingConfig {
  type: 'enabled';
  budget_tokens: number;
  /** `omitted`: the thinking blocks come back with empty text, their signatures valid for replaying them so. */
  display?: 'summarized' | 'omitted';
}

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: AnthropicTextBlock[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  thinking?: AnthropicThinkingConfig;
  output_config?: { format: { type: 'json_schema'; schema: Record<string, unknown> } };
  metadata?: { user_id: string };
  stream?: true;
}

// ---- answers ----

export interface AnthropicUsageWire {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  [key: string]: unknown;
}

export interface AnthropicContentBlockWire {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

export interface AnthropicErrorWire {
  type?: unknown;
  message?: unknown;
}

export interface AnthropicMessageWire {
  id?: unknown;
  type?: unknown;
  model?: unknown;
  content?: unknown;
  stop_reason?: unknown;
  stop_sequence?: unknown;
  usage?: unknown;
  error?: AnthropicErrorWire | null;
}

export interface AnthropicDeltaWire {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
  signature?: unknown;
  partial_json?: unknown;
  stop_reason?: unknown;
  stop_sequence?: unknown;
}

/** Any SSE event's data; `type` says which fields are set. */
export interface AnthropicStreamEventWire {
  type?: unknown;
  message?: AnthropicMessageWire | null;
  index?: unknown;
  content_block?: AnthropicContentBlockWire | null;
  delta?: AnthropicDeltaWire | null;
  usage?: unknown;
  error?: AnthropicErrorWire | null;
}
