// The Gemini API (generateContent / streamGenerateContent) wire shapes this adapter writes
// (requests, camelCase REST JSON) and the loose shapes it reads (responses, stream chunks).
// Reads are all optional: every field is checked before use (reference/wire-formats.md §4).

export interface GeminiInlineData {
  mimeType: string;
  data: string;
}
export interface GeminiFileData {
  mimeType?: string;
  fileUri: string;
}
export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}
export interface GeminiFunctionResponse {
  name: string;
  response: Record<string, unknown>;
  id?: string;
}

/** Exactly one payload per part; `thoughtSignature` rides beside it. */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  inlineData?: GeminiInlineData;
  fileData?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  thoughtSignature?: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The OpenAPI-subset schema Gemini takes for `responseSchema` and function `parameters`. */
export interface GeminiSchema {
  type?: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT';
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  items?: GeminiSchema;
  minItems?: string;
  maxItems?: string;
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  pattern?: string;
  anyOf?: GeminiSchema[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: GeminiSchema;
}

export interface GeminiToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] };
}

export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';
  includeThoughts?: boolean;
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseSchema?: GeminiSchema;
  /** `TEXT`, `IMAGE`, `AUDIO`: what the answer may hold (image and speech models). */
  responseModalities?: string[];
  thinkingConfig?: GeminiThinkingConfig;
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
}

// ---- reads ----

export interface GeminiPartWire {
  text?: unknown;
  thought?: unknown;
  thoughtSignature?: unknown;
  functionCall?: { name?: unknown; args?: unknown; id?: unknown } | null;
  /** Generated media: an image (image models) or audio (speech models), base64. */
  inlineData?: { mimeType?: unknown; data?: unknown } | null;
  [other: string]: unknown;
}

export interface GeminiCandidateWire {
  content?: { role?: unknown; parts?: unknown } | null;
  finishReason?: unknown;
  index?: unknown;
}

export interface GeminiUsageWire {
  promptTokenCount?: unknown;
  cachedContentTokenCount?: unknown;
  candidatesTokenCount?: unknown;
  toolUsePromptTokenCount?: unknown;
  thoughtsTokenCount?: unknown;
  totalTokenCount?: unknown;
  promptTokensDetails?: unknown;
  candidatesTokensDetails?: unknown;
}

/** A whole response, or one chunk of a stream: the same shape. */
export interface GeminiResponseWire {
  candidates?: unknown;
  promptFeedback?: { blockReason?: unknown } | null;
  usageMetadata?: GeminiUsageWire | null;
  modelVersion?: unknown;
  responseId?: unknown;
  error?: unknown;
}
