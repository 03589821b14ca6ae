// The Converse API's JSON (reference/wire-formats.md §5). Requests are typed exactly;
// answers loosely (`unknown` fields), since they are read defensively.

export interface ConverseCachePoint {
  cachePoint: { type: 'default' };
}

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';
export type ConverseDocumentFormat = 'pdf' | 'txt' | 'csv' | 'html' | 'md' | 'doc' | 'docx' | 'xls' | 'xlsx';

export interface ConverseImageBlock {
  image: { format: ConverseImageFormat; source: { bytes: string } };
}
export interface ConverseDocumentBlock {
  document: { format: ConverseDocumentFormat; name: string; source: { bytes: string } };
}
export interface ConverseTextBlock {
  text: string;
}
export interface ConverseToolUseBlock {
  toolUse: { toolUseId: string; name: string; input: Record<string, unknown> };
}
export interface ConverseToolResultBlock {
  toolResult: { toolUseId: string; content: Array<ConverseTextBlock | ConverseImageBlock>; status?: 'success' | 'error' };
}
export interface ConverseReasoningBlock {
  reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string };
}

export type ConverseContentBlock =
  | ConverseTextBlock
  | ConverseImageBlock
  | ConverseDocumentBlock
  | ConverseToolUseBlock
  | ConverseToolResultBlock
  | ConverseReasoningBlock
  | ConverseCachePoint;

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: Array<ConverseTextBlock | ConverseCachePoint>;
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: Array<ConverseTool | ConverseCachePoint>; toolChoice?: ConverseToolChoice };
  /** Model-specific fields: Claude's `thinking` and `anthropic_beta`. */
  additionalModelRequestFields?: Record<string, unknown>;
  /** Structured output: the schema travels as JSON text. */
  outputConfig?: { textFormat: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name: string; description?: string } } } };
}

export interface ConverseUsageWire {
  inputTokens?: unknown;
  outputTokens?: unknown;
  totalTokens?: unknown;
  cacheReadInputTokens?: unknown;
  cacheWriteInputTokens?: unknown;
  [key: string]: unknown;
}

/** A content block of an answer, or a stream's `start`/`delta`: one member set. */
export interface ConverseBlockWire {
  text?: unknown;
  toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown } | null;
  reasoningContent?: {
    reasoningText?: { text?: unknown; signature?: unknown } | null;
    text?: unknown;
    signature?: unknown;
    redactedContent?: unknown;
  } | null;
}

export interface ConverseResponseWire {
  output?: { message?: { role?: unknown; content?: unknown } | null } | null;
  stopReason?: unknown;
  usage?: ConverseUsageWire | null;
}

/** Any ConverseStream event's payload; the frame's `:event-type` says which fields are set. */
export interface ConverseStreamEventWire {
  role?: unknown;
  contentBlockIndex?: unknown;
  start?: ConverseBlockWire | null;
  delta?: ConverseBlockWire | null;
  stopReason?: unknown;
  usage?: ConverseUsageWire | null;
  message?: unknown;
}
