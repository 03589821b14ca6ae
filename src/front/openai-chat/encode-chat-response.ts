import type { AssistantAudioPart } from '../../canonical/request.ts';
import type { UrlCitation } from '../../canonical/finish-reason.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { encodeChatUsage, type ChatUsage } from './encode-chat-usage.ts';
import type { ResponseMeta } from '../front-dialect.ts';
import { mcpCallItem, type McpCallItem } from '../shared/encode-mcp-call.ts';

// A whole answer → the chat completion body (spec "Chat completion response" in OpenAI's
// wire shape, with OpenRouter's `provider`, `reasoning` and `native_finish_reason`).

/** The chat dialect needs nothing beyond the common response meta. */
export type ChatResponseMeta = ResponseMeta;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Spoken output (OpenAI's `audio` modality). `id` is what OpenAI takes back on a later
 * assistant message (`audio: {id}`) until `expires_at`; both are present when the upstream
 * gave them. `format` (the gateway's addition) is the audio's format when known.
 */
export interface ChatAudio {
  id?: string;
  data: string;
  transcript: string;
  format?: string;
  expires_at?: number;
}

/** A generated image, OpenRouter's shape: `url` is a `data:` URI or an https URL. */
export interface ChatImage {
  type: 'image_url';
  image_url: { url: string };
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  reasoning?: string;
  tool_calls?: ChatToolCall[];
  audio?: ChatAudio;
  images?: ChatImage[];
  /** URLs the answer cites (xAI live search), when the provider lists them. */
  citations?: string[];
  /** The sources of a web search the gateway ran, where the text cites them (OpenAI's and OpenRouter's shape). */
  annotations?: UrlCitation[];
  /** A web search the gateway was to run that was skipped (`on_error: "continue"`), and why. */
  web_search?: { status: 'skipped'; reason: string };
  /** The gateway's extension: the MCP tools it ran for this answer, in order (docs/tools.md). */
  mcp_calls?: McpCallItem[];
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  provider: string;
  system_fingerprint: null;
  choices: [
    {
      index: 0;
      message: ChatCompletionMessage;
      logprobs: null;
      finish_reason: string | null;
      native_finish_reason: string | null;
    },
  ];
  usage: ChatUsage;
}

export function encodeChatResponse(resp: CanonicalResponse, meta: ChatResponseMeta): ChatCompletion {
  let content: string | null = null;
  let reasoning: string | null = null;
  let toolCalls: ChatToolCall[] | null = null;
  let audio: ChatAudio | null = null;
  let images: ChatImage[] | null = null;
  for (const part of resp.content) {
    switch (part.type) {
      case 'text':
        content = content === null ? part.text : content + part.text;
        break;
      case 'reasoning':
        if (part.text.length > 0) reasoning = reasoning === null ? part.text : reasoning + part.text;
        break;
      case 'tool-call':
        (toolCalls ??= []).push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      case 'redacted-reasoning':
        // Encrypted reasoning has no chat-format field; a client could not replay it anyway.
        break;
      case 'audio-output':
        // A chat message holds one audio, as OpenAI answers with; were an upstream to give
        // several, the first is the one a client can replay by id, and the others are left out.
        audio ??= chatAudioOf(part);
        break;
      case 'image-output':
        (images ??= []).push({ type: 'image_url', image_url: { url: part.url } });
        break;
      default:
        assertNever(part);
    }
  }

  const message: ChatCompletionMessage = { role: 'assistant', content, refusal: null };
  if (reasoning !== null && !meta.excludeReasoning) message.reasoning = reasoning;
  if (toolCalls !== null) message.tool_calls = toolCalls;
  if (audio !== null) message.audio = audio;
  if (images !== null) message.images = images;
  const citations = resp.finish?.citations;
  if (citations !== undefined && citations.length > 0) message.citations = citations;
  const annotations = resp.finish?.annotations;
  if (annotations !== undefined && annotations.length > 0) message.annotations = annotations;
  const skipped = resp.finish?.searchSkipped;
  if (skipped !== undefined) message.web_search = { status: 'skipped', reason: skipped };
  if (resp.serverTools !== undefined) {
    const calls = resp.serverTools.flatMap((e) => (e.kind === 'call' ? [mcpCallItem(e.call)] : []));
    if (calls.length > 0) message.mcp_calls = calls;
  }

  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    provider: meta.provider,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: resp.finish?.unified ?? null,
        native_finish_reason: resp.finish?.raw ?? null,
      },
    ],
    usage: encodeChatUsage(resp.usage, meta.cost),
  };
}

function chatAudioOf(part: AssistantAudioPart): ChatAudio {
  const audio: ChatAudio =
    part.id === undefined
      ? { data: part.data, transcript: part.transcript }
      : { id: part.id, data: part.data, transcript: part.transcript };
  if (part.format !== undefined) audio.format = part.format;
  if (part.expiresAt !== undefined) audio.expires_at = part.expiresAt;
  return audio;
}
