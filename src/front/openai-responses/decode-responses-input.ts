import { isInlinePdf } from '../../canonical/data-uri.ts';
import type {
  AssistantContentPart,
  AssistantMessage,
  ImagePart,
  Message,
  ReasoningEffort,
  ResponseFormat,
  SystemMessage,
  TextPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  UserContentPart,
  UserMessage,
} from '../../canonical/request.ts';
import { GatewayError, invalidParameter } from '../../errors/gateway-error.ts';
import { REASONING_EFFORTS } from '../shared/decode-reasoning.ts';
import { describeType, isObject, messageError, missingField, readEnum, readObject, type JsonObject } from '../shared/read-fields.ts';
import {
  decodeImagePart,
  decodeTextPart,
  decodeUserPart,
  itemPath,
  partPath,
  partType,
  requireItemText,
  requirePartText,
  unknownPartType,
} from './decode-responses-content.ts';
import { decodeResponsesFormat } from './decode-responses-tools.ts';
import { reasoningFromItem } from './reasoning-encrypted-content.ts';

// `input` (a string or a list of items) → canonical messages. The endpoint is stateless,
// so the list is the whole conversation:
// - `message` items (with or without `type`): `user` → user message; `system` and
//   `developer` → system messages at their position; `assistant` → assistant text.
// - An assistant turn is a run of `reasoning`, assistant `message` and `function_call`
//   items; each run becomes one assistant message, parts in order, as providers that
//   need strict role alternation (Anthropic) expect.
// - A run of `function_call_output` items becomes one tool message.
// - `configuration_update` items change `text.format` or the reasoning effort from their
//   position on; replayed statelessly, the last one is what this response answers under.
// - Items that record work done by a hosted tool (web search, code interpreter, ...)
//   cannot be replayed to any provider and are dropped, like the hosted tools themselves;
//   `item_reference` points at stored state, which a stateless endpoint does not have.

const DROPPED_ITEMS: ReadonlySet<string> = new Set([
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'code_interpreter_call',
  'image_generation_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'compaction',
  'tool_search_call',
  'tool_search_output',
]);

const ITEM_TYPES = "'message', 'function_call', 'function_call_output', 'reasoning', 'configuration_update'";

/** The settings the last `configuration_update` items left in effect. */
export interface ConfigurationUpdate {
  format?: ResponseFormat;
  effort?: ReasoningEffort;
}

export interface DecodedInput {
  messages: Message[];
  update: ConfigurationUpdate;
  /** PDFs sent inline, for CanonicalRequest.inlinePdfs. */
  inlinePdfs: number;
}
const ROLES = "'user', 'assistant', 'system', 'developer'";

/** Builds the message list, keeping the open assistant and tool runs until another item closes them. */
class InputReader {
  readonly messages: Message[] = [];
  readonly update: ConfigurationUpdate = {};
  inlinePdfs = 0;
  private assistant: AssistantMessage | null = null;
  private tool: ToolMessage | null = null;
  /** call_id → function name, so tool results can name their function (Gemini needs it). */
  private readonly callNames = new Map<string, string>();

  read(item: unknown, i: number): void {
    if (!isObject(item)) throw messageError(itemPath(i), `expected an input item object, got ${describeType(item)}`);
    const type = item.type;
    // The easy message form has no `type`.
    if (type === undefined || type === null || type === 'message') return this.readMessage(item, i);
    switch (type) {
      case 'function_call':
        return this.readFunctionCall(item, i);
      case 'function_call_output':
        return this.readFunctionOutput(item, i);
      case 'reasoning':
        return this.readReasoning(item, i);
      case 'configuration_update':
        return this.readConfigurationUpdate(item, i);
      case 'item_reference':
        throw invalidParameter(
          itemPath(i),
          `Unsupported '${itemPath(i)}': item references point at stored responses, and this endpoint is stateless; ` +
            'send the whole items instead (the AI SDK does with providerOptions.openai.store = false; replaying response.output items as they came works too).',
        );
    }
    if (typeof type !== 'string') throw messageError(itemPath(i, '.type'), `expected a string, got ${describeType(type)}`);
    if (DROPPED_ITEMS.has(type)) return;
    throw messageError(itemPath(i, '.type'), `unsupported input item type ${JSON.stringify(type)}; expected one of ${ITEM_TYPES}`);
  }

  finish(): Message[] {
    this.closeAssistant();
    this.closeTool();
    return this.messages;
  }

  private readMessage(item: JsonObject, i: number): void {
    const role = item.role;
    switch (role) {
      case 'assistant':
        this.closeTool();
        readAssistantContent(item, i, this.openAssistant(), this.callNames);
        return;
      case 'user':
        this.closeRuns();
        this.messages.push(readUser(item, i, this));
        return;
      case 'system':
      case 'developer':
        this.closeRuns();
        this.messages.push(readSystem(item, i));
        return;
      case undefined:
      case null:
        throw missingField(itemPath(i, '.role'));
      default:
        throw messageError(itemPath(i, '.role'), `must be one of ${ROLES}, got ${JSON.stringify(role)}`);
    }
  }

  private readFunctionCall(item: JsonObject, i: number): void {
    this.closeTool();
    const id = requireItemText(item, 'call_id', i);
    const name = requireItemText(item, 'name', i);
    const args = item.arguments;
    if (typeof args !== 'string') {
      if (args === undefined || args === null) throw missingField(itemPath(i, '.arguments'));
      throw messageError(itemPath(i, '.arguments'), `expected a JSON string, got ${describeType(args)}`);
    }
    this.callNames.set(id, name);
    this.openAssistant().content.push({ type: 'tool-call', id, name, arguments: args });
  }

  private readFunctionOutput(item: JsonObject, i: number): void {
    this.closeAssistant();
    const toolCallId = requireItemText(item, 'call_id', i);
    const result: ToolResultPart = { type: 'tool-result', toolCallId, content: readToolOutput(item, i) };
    const name = this.callNames.get(toolCallId);
    if (name !== undefined) result.name = name;
    if (this.tool === null) this.tool = { role: 'tool', content: [] };
    this.tool.content.push(result);
  }

  private readReasoning(item: JsonObject, i: number): void {
    this.closeTool();
    const encrypted = item.encrypted_content;
    if (encrypted !== undefined && encrypted !== null && typeof encrypted !== 'string') {
      throw messageError(itemPath(i, '.encrypted_content'), `expected a string, got ${describeType(encrypted)}`);
    }
    // Raw reasoning text (`content`) is what a signature was made over; a summary is what
    // this gateway sends, one part per item, so either replays the text exactly.
    const text = readReasoningText(item, i, 'content', 'reasoning_text') ?? readReasoningText(item, i, 'summary', 'summary_text') ?? '';
    const part = reasoningFromItem(text, encrypted ?? undefined);
    if (part !== null) this.openAssistant().content.push(part);
  }

  private readConfigurationUpdate(item: JsonObject, i: number): void {
    const text = readObject(item, 'text', itemPath(i));
    const format = text === undefined ? undefined : decodeResponsesFormat(text.format, itemPath(i, '.text.format'));
    if (format !== undefined) this.update.format = format;
    const reasoning = readObject(item, 'reasoning', itemPath(i));
    const effort = reasoning === undefined ? undefined : readEnum(reasoning, 'effort', REASONING_EFFORTS, itemPath(i, '.reasoning'));
    if (effort !== undefined) this.update.effort = effort;
  }

  private openAssistant(): AssistantMessage {
    if (this.assistant === null) this.assistant = { role: 'assistant', content: [] };
    return this.assistant;
  }

  private closeRuns(): void {
    this.closeAssistant();
    this.closeTool();
  }

  /** An assistant turn that carried nothing (only empty text) is left out: providers reject empty messages. */
  private closeAssistant(): void {
    const a = this.assistant;
    if (a === null) return;
    if (a.content.length > 0 || a.refusal !== undefined) this.messages.push(a);
    this.assistant = null;
  }

  private closeTool(): void {
    if (this.tool === null) return;
    this.messages.push(this.tool);
    this.tool = null;
  }
}

export function decodeResponsesInput(raw: unknown, instructions: string | undefined): DecodedInput {
  const reader = new InputReader();
  if (instructions !== undefined) reader.messages.push({ role: 'system', content: [{ type: 'text', text: instructions }] });
  if (typeof raw === 'string') {
    reader.messages.push({ role: 'user', content: [{ type: 'text', text: raw }] });
    return { messages: reader.messages, update: reader.update, inlinePdfs: 0 };
  }
  if (!Array.isArray(raw)) {
    throw invalidParameter('input', `Invalid type for 'input': expected a string or an array of input items, got ${describeType(raw)}.`);
  }
  if (raw.length === 0) throw invalidParameter('input', "Invalid value for 'input': must contain at least 1 item.");
  for (let i = 0; i < raw.length; i++) reader.read(raw[i], i);
  const messages = reader.finish();
  if (messages.length === 0) {
    throw invalidParameter('input', "Invalid value for 'input': none of its items is a message a model can read.");
  }
  return { messages, update: reader.update, inlinePdfs: reader.inlinePdfs };
}

function contentTypeError(i: number, content: unknown, expected: string): GatewayError {
  return messageError(itemPath(i, '.content'), `expected ${expected}, got ${describeType(content)}`);
}

function readUser(item: JsonObject, i: number, counts: { inlinePdfs: number }): UserMessage {
  const content = item.content;
  if (typeof content === 'string') return { role: 'user', content: [{ type: 'text', text: content }] };
  if (content === undefined || content === null) throw missingField(itemPath(i, '.content'));
  if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of content parts');
  const parts: UserContentPart[] = new Array<UserContentPart>(content.length);
  for (let j = 0; j < content.length; j++) {
    const p: unknown = content[j];
    const part = decodeUserPart(p as JsonObject, partType(p, i, 'content', j), i, j);
    if (part.type === 'file' && isInlinePdf(part)) counts.inlinePdfs++;
    parts[j] = part;
  }
  return { role: 'user', content: parts };
}

function readSystem(item: JsonObject, i: number): SystemMessage {
  const content = item.content;
  if (typeof content === 'string') return { role: 'system', content: [{ type: 'text', text: content }] };
  if (content === undefined || content === null) throw missingField(itemPath(i, '.content'));
  if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of text parts');
  const parts: TextPart[] = new Array<TextPart>(content.length);
  for (let j = 0; j < content.length; j++) {
    const p: unknown = content[j];
    const type = partType(p, i, 'content', j);
    if (type !== 'input_text' && type !== 'text')
      throw unknownPartType(type, i, 'content', j, "'input_text' (system and developer messages take text only)");
    parts[j] = decodeTextPart(p as JsonObject, i, 'content', j);
  }
  return { role: 'system', content: parts };
}

/**
 * An assistant replay: `output_text` and `refusal` parts (the vendor shape) and the spec's
 * `{type: 'function_call', function_call: {id, name, arguments}}` parts, appended to `msg`.
 */
function readAssistantContent(item: JsonObject, i: number, msg: AssistantMessage, callNames: Map<string, string>): void {
  const content = item.content;
  // An empty string is how clients say "no text"; providers reject empty text blocks.
  if (typeof content === 'string') {
    if (content.length > 0) msg.content.push({ type: 'text', text: content });
    return;
  }
  if (content === undefined || content === null) throw missingField(itemPath(i, '.content'));
  if (!Array.isArray(content)) throw contentTypeError(i, content, 'a string or an array of content parts');
  for (let j = 0; j < content.length; j++) {
    const p: unknown = content[j];
    const type = partType(p, i, 'content', j);
    const part = p as JsonObject;
    switch (type) {
      case 'output_text':
      case 'input_text':
      case 'text': {
        const text = requirePartText(part, 'text', i, 'content', j);
        if (text.length > 0) pushText(msg.content, text);
        break;
      }
      case 'refusal': {
        const refusal = requirePartText(part, 'refusal', i, 'content', j);
        msg.refusal = msg.refusal === undefined ? refusal : msg.refusal + refusal;
        break;
      }
      case 'function_call': {
        const call = readFunctionCallPart(part, i, j);
        callNames.set(call.id, call.name);
        msg.content.push(call);
        break;
      }
      default:
        throw unknownPartType(type, i, 'content', j, "'output_text', 'refusal', 'function_call'");
    }
  }
}

/** Consecutive text parts of one turn stay one block, as the model wrote them. */
function pushText(content: AssistantContentPart[], text: string): void {
  const last = content[content.length - 1];
  if (last !== undefined && last.type === 'text') last.text += text;
  else content.push({ type: 'text', text });
}

function readFunctionCallPart(part: JsonObject, i: number, j: number): ToolCallPart {
  const fc = part.function_call;
  if (fc === undefined || fc === null) throw missingField(partPath(i, 'content', j, '.function_call'));
  if (!isObject(fc))
    throw messageError(partPath(i, 'content', j, '.function_call'), `expected an object {id, name, arguments}, got ${describeType(fc)}`);
  return {
    type: 'tool-call',
    id: requirePartText(fc, 'id', i, 'content', j, '.function_call'),
    name: requirePartText(fc, 'name', i, 'content', j, '.function_call'),
    arguments: requirePartText(fc, 'arguments', i, 'content', j, '.function_call'),
  };
}

function readToolOutput(item: JsonObject, i: number): string | Array<TextPart | ImagePart> {
  const output = item.output;
  if (typeof output === 'string') return output;
  if (output === undefined || output === null) throw missingField(itemPath(i, '.output'));
  if (!Array.isArray(output))
    throw messageError(itemPath(i, '.output'), `expected a string or an array of content parts, got ${describeType(output)}`);
  const parts: Array<TextPart | ImagePart> = new Array<TextPart | ImagePart>(output.length);
  for (let j = 0; j < output.length; j++) {
    const p: unknown = output[j];
    const type = partType(p, i, 'output', j);
    if (type === 'input_text' || type === 'output_text' || type === 'text') parts[j] = decodeTextPart(p as JsonObject, i, 'output', j);
    else if (type === 'input_image') parts[j] = decodeImagePart(p as JsonObject, i, 'output', j);
    else if (type === 'input_file') {
      const param = partPath(i, 'output', j);
      throw new GatewayError(
        'unsupported_content',
        `Unsupported '${param}': files in a function call's output cannot be carried to providers; send the file in a user message.`,
        { param },
      );
    } else throw unknownPartType(type, i, 'output', j, "'input_text', 'input_image'");
  }
  return parts;
}

/** The texts of `item[list]` (parts of type `partType`) joined, or undefined when the list is absent or empty. */
function readReasoningText(item: JsonObject, i: number, list: string, partTypeName: string): string | undefined {
  const raw = item[list];
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw))
    throw messageError(itemPath(i, `.${list}`), `expected an array of ${partTypeName} parts, got ${describeType(raw)}`);
  if (raw.length === 0) return undefined;
  let text = '';
  for (let j = 0; j < raw.length; j++) {
    const p: unknown = raw[j];
    const type = partType(p, i, list, j);
    if (type !== partTypeName) throw unknownPartType(type, i, list, j, `'${partTypeName}'`);
    if (j > 0) text += '\n\n';
    text += requirePartText(p as JsonObject, 'text', i, list, j);
  }
  return text;
}
