import type { CanonicalRequest } from '../../canonical/request.ts';
import { decodeMessagesMcpServers } from '../shared/decode-mcp-servers.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { checkToolChoice } from '../shared/check-tool-choice.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { decodeCoreSampling } from '../shared/decode-sampling.ts';
import {
  invalidType,
  invalidValue,
  isObject,
  missingParameter,
  readBoolean,
  readNumber,
  readObject,
  readStringArray,
  type JsonObject,
  type NumberRange,
} from '../shared/read-fields.ts';
import { readEndUser } from '../shared/decode-client-strings.ts';
import { decodeMessagesConversation } from './decode-messages-conversation.ts';
import { decodeMessagesOutputFormat, decodeMessagesThinking } from './decode-messages-thinking.ts';
import { decodeMessagesToolChoice, decodeMessagesTools, messagesToolChoiceRule } from './decode-messages-tools.ts';
import { newDecodeState } from './messages-decode-state.ts';

// The body of POST /v1/messages → CanonicalRequest, validated per the spec's messages
// request table. Fields the client did not set stay absent; unknown fields, and the
// Anthropic-only ones no other provider has (`service_tier`, `container`,
// `context_management`, `inference_geo`, `speed`, top-level `cache_control`, ...), are
// ignored. The gateway's own routing fields (`models`, `fallbacks`, `provider`) are read
// as on every endpoint.

const TOP_K: NumberRange = { min: 0, integer: true };
const MAX_TOKENS: NumberRange = { min: 1, integer: true };

export interface MessagesDecodeOptions {
  /** `count_tokens` takes the same body without `max_tokens`. */
  requireMaxTokens: boolean;
}

const GENERATION: MessagesDecodeOptions = { requireMaxTokens: true };

export function decodeMessagesRequest(body: unknown, opts: MessagesDecodeOptions = GENERATION): CanonicalRequest {
  if (!isObject(body)) throw new GatewayError('invalid_json', 'The request body must be a JSON object.');

  const maxTokens = readNumber(body, 'max_tokens', MAX_TOKENS);
  if (maxTokens === undefined && opts.requireMaxTokens) throw missingParameter('max_tokens', 'is required on the messages endpoint');

  const raw = body.messages;
  if (raw === undefined || raw === null) throw missingParameter('messages', 'must be an array of at least 1 message');
  if (!Array.isArray(raw)) throw invalidType('messages', 'an array of messages', raw);
  if (raw.length === 0) throw invalidValue('messages', 'must contain at least 1 message');

  // One state for system, tools and messages: the cache_control limit counts them together.
  const state = newDecodeState();
  const dropped = new Set<string>();
  const tools = decodeMessagesTools(body.tools, state, dropped);
  const messages = decodeMessagesConversation(body.system, raw, state);

  const req: CanonicalRequest = {
    models: decodeModelList(body),
    messages,
    sampling: decodeCoreSampling(body),
    stream: readBoolean(body, 'stream') ?? false,
    extra: {},
  };
  // Anthropic's web search server tool (`web_search_20250305`, named `web_search`): the gateway may run it (docs/tools.md).
  for (const name of dropped) if (name.startsWith('web_search')) req.webSearchTool = true;
  if (state.inlinePdfs > 0) req.inlinePdfs = state.inlinePdfs;
  // The MCP connector's servers: the gateway runs their tools itself (docs/tools.md).
  const mcp = decodeMessagesMcpServers(body);
  if (mcp !== undefined) req.mcp = mcp;
  if (maxTokens !== undefined) req.maxOutputTokens = maxTokens;
  const stop = readStringArray(body, 'stop_sequences');
  if (stop !== undefined && stop.length > 0) req.stop = stop;
  if (tools !== undefined) req.tools = tools;
  const toolChoice = checkToolChoice(decodeMessagesToolChoice(body.tool_choice), tools, messagesToolChoiceRule(dropped));
  if (toolChoice !== undefined) req.toolChoice = toolChoice;

  const outputConfig = readObject(body, 'output_config');
  const thinking = decodeMessagesThinking(body, outputConfig);
  if (thinking.reasoning !== undefined) req.reasoning = thinking.reasoning;
  const responseFormat = decodeMessagesOutputFormat(outputConfig);
  if (responseFormat !== undefined) req.responseFormat = responseFormat;

  // `top_k` is ignored (the spec), but still refused beside thinking, as Anthropic does.
  const topK = readNumber(body, 'top_k', TOP_K);
  if (thinking.enabled) checkThinkingConflicts(topK, toolChoice?.type);

  const user = decodeUserId(body);
  if (user !== undefined) req.user = user;
  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  return req;
}

/** `metadata.user_id` is the one metadata field carried (the spec); Claude Code puts a JSON string there. */
function decodeUserId(body: JsonObject): string | undefined {
  const metadata = readObject(body, 'metadata');
  if (metadata === undefined) return undefined;
  const user = readEndUser(metadata, 'user_id', 'metadata');
  return user === undefined || user.length === 0 ? undefined : user;
}

function checkThinkingConflicts(topK: number | undefined, toolChoice: string | undefined): void {
  if (topK !== undefined) {
    throw new GatewayError('reasoning_conflict', "'top_k' is not allowed while thinking is enabled; remove it or disable thinking.", {
      param: 'top_k',
    });
  }
  if (toolChoice === 'required' || toolChoice === 'tool') {
    throw new GatewayError(
      'reasoning_conflict',
      "'tool_choice' must be 'auto' or 'none' while thinking is enabled; a forced tool choice ('any' or 'tool') needs thinking disabled.",
      { param: 'tool_choice' },
    );
  }
}
