import type {
  AssistantAudioPart,
  AssistantContentPart,
  AssistantMessage,
  ImagePart,
  Message,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../../canonical/request.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { describeType, isObject, messageError, missingField, type JsonObject } from '../shared/read-fields.ts';
import {
  decodeImagePart,
  decodeTextPart,
  decodeUserPart,
  partType,
  readCacheControl,
  requirePartString,
  unknownPartType,
  type ContentState,
} from './decode-chat-content-parts.ts';

// The `messages` array of a chat request → canonical messages. The caller has checked
// that it is a non-empty array. Errors are `invalid_message`, except the cache_control
// limit (`too_many_cache_control_blocks`) and inline-only content (`unsupported_content`).

export function decodeChatMessages(list: readonly unknown[], state: ContentState = { cacheControlBlocks: 0, inlinePdfs: 0 }): Message[] {
  const out: Message[] = new Array<Message>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = decodeMessage(list[i], i, state);
  return out;
}

const ROLES = "'system', 'developer', 'user', 'assistant', 'tool', 'function'";

function decodeMessage(m: unknown, i: number, state: ContentState): Message {
  if (!isObject(m)) throw messageError(`messages[${i}]`, `expected a message object, got ${describeType(m)}`);
  const role = m.role;
  switch (role) {
    case 'user':
      return decodeUser(m, i, state);
    case 'assistant':
      return decodeAssistant(m, i, state);
    case 'system':
    case 'developer':
      return decodeSystem(m, i, state);
    case 'tool':
      return decodeTool(m, i, state);
    case 'function':
      return decodeFunction(m, i);
    case undefined:
    case null:
      throw missingField(`messages[${i}].role`);
    default:
      throw messageError(`messages[${i}].role`, `must be one of ${ROLES}, got ${JSON.stringify(role)}`);
  }
}

function optionalName(m: JsonObject, i: number): string | undefined {
  const name = m.name;
  if (name === undefined || name === null) return undefined;
  if (typeof name !== 'string') throw messageError(`messages[${i}].name`, `expected a string, got ${describeType(name)}`);
  return name;
}

function contentTypeError(i: number, content: unknown, expected: string): GatewayError {
  return messageError(`messages[${i}].content`, `expected ${expected}, got ${describeType(content)}`);
}

function decodeSystem(m: JsonObject, i: number, state: ContentState): SystemMessage {
  const content = m.content;
  if (typeof content === 'string') return { role: 'system', content: [{ type: 'text', text: content }] };
  if (content === undefined || content === null) throw missingField(`messages[${i}].content`);
  if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of text parts');
  const parts: TextPart[] = new Array<TextPart>(content.length);
  for (let j = 0; j < content.length; j++) {
    const p: unknown = content[j];
    const type = partType(p, i, j);
    if (type !== 'text') throw unknownPartType(type, i, j, "'text' (system messages take text only)");
    const text = decodeTextPart(p as JsonObject, i, j);
    readCacheControl(p as JsonObject, text, i, j, state);
    parts[j] = text;
  }
  return { role: 'system', content: parts };
}

function decodeUser(m: JsonObject, i: number, state: ContentState): UserMessage {
  const content = m.content;
  let parts: UserContentPart[];
  if (typeof content === 'string') parts = [{ type: 'text', text: content }];
  else if (content === undefined || content === null) throw missingField(`messages[${i}].content`);
  else if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of content parts');
  else {
    parts = new Array<UserContentPart>(content.length);
    for (let j = 0; j < content.length; j++) {
      const p: unknown = content[j];
      parts[j] = decodeUserPart(p as JsonObject, partType(p, i, j), i, j, state);
    }
  }
  const msg: UserMessage = { role: 'user', content: parts };
  const name = optionalName(m, i);
  if (name !== undefined) msg.name = name;
  return msg;
}

function decodeAssistant(m: JsonObject, i: number, state: ContentState): AssistantMessage {
  const parts: AssistantContentPart[] = [];
  // OpenRouter clients replay the previous turn's reasoning; it comes before the answer.
  const reasoning = m.reasoning;
  if (typeof reasoning === 'string') {
    if (reasoning.length > 0) parts.push({ type: 'reasoning', text: reasoning });
  } else if (reasoning !== undefined && reasoning !== null) {
    throw messageError(`messages[${i}].reasoning`, `expected a string, got ${describeType(reasoning)}`);
  }

  let refusal: string | undefined;
  const content = m.content;
  // An empty string is how many clients say "no text" beside tool calls; providers
  // reject empty text blocks, so it carries nothing.
  if (typeof content === 'string') {
    if (content.length > 0) parts.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    for (let j = 0; j < content.length; j++) {
      const p: unknown = content[j];
      const type = partType(p, i, j);
      if (type === 'text') {
        const text = decodeTextPart(p as JsonObject, i, j);
        readCacheControl(p as JsonObject, text, i, j, state);
        parts.push(text);
      } else if (type === 'refusal') {
        const r = requirePartString(p as JsonObject, 'refusal', i, j);
        refusal = refusal === undefined ? r : refusal + r;
      } else {
        throw unknownPartType(type, i, j, "'text', 'refusal'");
      }
    }
  } else if (content !== undefined && content !== null) {
    throw contentTypeError(i, content, 'a string, an array of text parts, or null');
  }

  const audio = decodeAssistantAudio(m.audio, i);
  if (audio !== undefined) parts.push(audio);

  const toolCalls = m.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) throw messageError(`messages[${i}].tool_calls`, `expected an array, got ${describeType(toolCalls)}`);
    for (let k = 0; k < toolCalls.length; k++) parts.push(decodeToolCall(toolCalls[k], i, k));
  }

  const msg: AssistantMessage = { role: 'assistant', content: parts };
  const refusalField = m.refusal;
  if (typeof refusalField === 'string') refusal = refusal === undefined ? refusalField : refusal + refusalField;
  else if (refusalField !== undefined && refusalField !== null) {
    throw messageError(`messages[${i}].refusal`, `expected a string, got ${describeType(refusalField)}`);
  }
  if (refusal !== undefined) msg.refusal = refusal;
  const name = optionalName(m, i);
  if (name !== undefined) msg.name = name;
  return msg;
}

/**
 * `audio: {id}`: a client replaying an answer OpenAI spoke (the `audio` modality) names the
 * audio by the id OpenAI gave it; OpenAI takes it back that way and knows what was said.
 * It becomes an `audio-output` part with that id and no data or transcript: the OpenAI
 * adapter sends it back as `audio: {id}` to vendors that generate audio; every other
 * upstream leaves it out, since the id means nothing to it and there is no transcript to
 * send in its place (see convert-to-openai-chat-messages.ts and the other adapters).
 */
function decodeAssistantAudio(audio: unknown, i: number): AssistantAudioPart | undefined {
  if (audio === undefined || audio === null) return undefined;
  if (!isObject(audio)) throw messageError(`messages[${i}].audio`, `expected an object {id}, got ${describeType(audio)}`);
  const id = audio.id;
  if (typeof id !== 'string' || id.length === 0) {
    if (id === undefined || id === null) throw missingField(`messages[${i}].audio.id`);
    throw messageError(`messages[${i}].audio.id`, `expected a non-empty string, got ${describeType(id)}`);
  }
  return { type: 'audio-output', id, data: '', transcript: '' };
}

function decodeToolCall(call: unknown, i: number, k: number): ToolCallPart {
  if (!isObject(call)) throw messageError(`messages[${i}].tool_calls[${k}]`, `expected a tool call object, got ${describeType(call)}`);
  const id = call.id;
  if (typeof id !== 'string') {
    if (id === undefined || id === null) throw missingField(`messages[${i}].tool_calls[${k}].id`);
    throw messageError(`messages[${i}].tool_calls[${k}].id`, `expected a string, got ${describeType(id)}`);
  }
  // `type` is always 'function' in practice; some clients leave it out.
  if (call.type !== undefined && call.type !== null && call.type !== 'function') {
    throw messageError(`messages[${i}].tool_calls[${k}].type`, `must be 'function', got ${JSON.stringify(call.type)}`);
  }
  const fn = call.function;
  if (fn === undefined || fn === null) throw missingField(`messages[${i}].tool_calls[${k}].function`);
  if (!isObject(fn))
    throw messageError(`messages[${i}].tool_calls[${k}].function`, `expected an object {name, arguments}, got ${describeType(fn)}`);
  const name = fn.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingField(`messages[${i}].tool_calls[${k}].function.name`);
    throw messageError(`messages[${i}].tool_calls[${k}].function.name`, `expected a string, got ${describeType(name)}`);
  }
  const args = fn.arguments;
  if (typeof args !== 'string') {
    if (args === undefined || args === null) throw missingField(`messages[${i}].tool_calls[${k}].function.arguments`);
    throw messageError(`messages[${i}].tool_calls[${k}].function.arguments`, `expected a JSON string, got ${describeType(args)}`);
  }
  return { type: 'tool-call', id, name, arguments: args };
}

function decodeTool(m: JsonObject, i: number, state: ContentState): ToolMessage {
  const id = m.tool_call_id;
  if (typeof id !== 'string') {
    if (id === undefined || id === null) throw missingField(`messages[${i}].tool_call_id`);
    throw messageError(`messages[${i}].tool_call_id`, `expected a string, got ${describeType(id)}`);
  }
  const content = m.content;
  let result: ToolResultPart;
  if (typeof content === 'string') result = { type: 'tool-result', toolCallId: id, content };
  else if (content === undefined || content === null) throw missingField(`messages[${i}].content`);
  else if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of content parts');
  else {
    const parts: Array<TextPart | ImagePart> = new Array<TextPart | ImagePart>(content.length);
    for (let j = 0; j < content.length; j++) {
      const p: unknown = content[j];
      const type = partType(p, i, j);
      let part: TextPart | ImagePart;
      if (type === 'text') part = decodeTextPart(p as JsonObject, i, j);
      else if (type === 'image_url') part = decodeImagePart(p as JsonObject, i, j);
      else throw unknownPartType(type, i, j, "'text', 'image_url'");
      readCacheControl(p as JsonObject, part, i, j, state);
      parts[j] = part;
    }
    result = { type: 'tool-result', toolCallId: id, content: parts };
  }
  const name = optionalName(m, i);
  if (name !== undefined) result.name = name;
  return { role: 'tool', content: [result] };
}

/** The deprecated `function` role: its `name` is the only link to the call it answers. */
function decodeFunction(m: JsonObject, i: number): ToolMessage {
  const name = m.name;
  if (typeof name !== 'string') {
    if (name === undefined || name === null) throw missingField(`messages[${i}].name`);
    throw messageError(`messages[${i}].name`, `expected a string, got ${describeType(name)}`);
  }
  const content = m.content;
  if (typeof content !== 'string' && content !== null && content !== undefined) {
    throw contentTypeError(i, content, 'a string');
  }
  return { role: 'tool', content: [{ type: 'tool-result', toolCallId: name, name, content: content ?? '' }] };
}
