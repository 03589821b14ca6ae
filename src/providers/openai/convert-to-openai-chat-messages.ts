import type { AssistantMessage, FilePart, Message, ToolResultPart, UserContentPart, UserMessage } from '../../canonical/request.ts';
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { InputKind } from './profiles/openai-profile.ts';
import type {
  OpenAIChatAssistantMessage,
  OpenAIChatMessage,
  OpenAIChatToolCall,
  OpenAIChatUserMessage,
  OpenAIChatUserPart,
} from './openai-chat-wire-types.ts';

// cache_control hints are dropped throughout: OpenAI-style servers cache prompt prefixes on
// their own, and `prompt_cache_key` travels at the top level.

/** The vendor's name and the input kinds its chat API takes (from its profile). */
export interface InputSupport {
  readonly vendor: string;
  readonly kinds: ReadonlySet<InputKind>;
  /**
   * The endpoint generates spoken output (it takes the `audio` parameter), so it takes its
   * own audio back by id on an assistant turn. Absent: false.
   */
  readonly audioReplay?: boolean;
}

const KIND_NAMES: Readonly<Record<InputKind, string>> = { image: 'image', file: 'file (PDF or other document)', audio: 'audio' };

/**
 * Content the vendor cannot take is refused here, before anything is sent: the executor
 * then moves on to another endpoint, and with none left the client gets `unsupported_content`.
 */
export function convertToOpenAIChatMessages(messages: readonly Message[], input: InputSupport): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        // A plain string: not every compatible server accepts part arrays for system.
        out.push({ role: 'system', content: joinText(m.content, '\n') });
        break;
      case 'user':
        out.push(convertUserMessage(m, input));
        break;
      case 'assistant':
        out.push(convertAssistantMessage(m, input.audioReplay === true));
        break;
      case 'tool':
        // `isError` has no field on this wire; the result's own text has to say so.
        for (const part of m.content)
          out.push({ role: 'tool', tool_call_id: upstreamToolCallId(part.toolCallId), content: toolResultText(part) });
        break;
      default:
        assertNever(m);
    }
  }
  return out;
}

function convertUserMessage(m: UserMessage, input: InputSupport): OpenAIChatUserMessage {
  const parts = m.content;
  let content: OpenAIChatUserMessage['content'];
  // A lone text part goes as a string, which every compatible server understands.
  if (parts.length === 1 && parts[0]!.type === 'text') content = parts[0]!.text;
  else {
    content = new Array<OpenAIChatUserPart>(parts.length);
    for (let i = 0; i < parts.length; i++) content[i] = accept(convertUserPart(parts[i]!, i), input);
  }
  const msg: OpenAIChatUserMessage = { role: 'user', content };
  if (m.name !== undefined) msg.name = m.name;
  return msg;
}

function convertUserPart(part: UserContentPart, i: number): OpenAIChatUserPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const image_url: { url: string; detail?: 'low' | 'high' | 'auto' } = { url: part.url };
      if (part.detail !== undefined) image_url.detail = part.detail;
      return { type: 'image_url', image_url };
    }
    case 'audio':
      return { type: 'input_audio', input_audio: { data: part.data, format: part.format } };
    case 'file':
      return convertFilePart(part, i);
    default:
      return assertNever(part);
  }
}

function accept(part: OpenAIChatUserPart, input: InputSupport): OpenAIChatUserPart {
  const kind: InputKind | null =
    part.type === 'image_url' ? 'image' : part.type === 'file' ? 'file' : part.type === 'input_audio' ? 'audio' : null;
  if (kind === null || input.kinds.has(kind)) return part;
  throw new GatewayError(
    'unsupported_content',
    `${input.vendor}'s chat API takes no ${KIND_NAMES[kind]} input; send it to a model whose provider takes it.`,
  );
}

function convertFilePart(part: FilePart, i: number): OpenAIChatUserPart {
  if (part.data !== undefined) {
    const mediaType = part.mediaType ?? 'application/octet-stream';
    const fileData = part.data.startsWith('data:') ? part.data : `data:${mediaType};base64,${part.data}`;
    // OpenAI rejects inline files without a name, so invent a stable one.
    const filename = part.filename ?? `file-${i}${mediaType === 'application/pdf' ? '.pdf' : ''}`;
    return { type: 'file', file: { file_data: fileData, filename } };
  }
  if (part.url !== undefined && part.mediaType?.startsWith('image/')) {
    return { type: 'image_url', image_url: { url: part.url } };
  }
  // Chat completions take files inline only (or by an uploaded file id we never have).
  throw new GatewayError('unsupported_content', 'Files must be sent inline (base64 data) for this provider');
}

function convertAssistantMessage(m: AssistantMessage, audioReplay: boolean): OpenAIChatAssistantMessage {
  let text = '';
  let toolCalls: OpenAIChatToolCall[] | undefined;
  let audioId: string | undefined;
  for (const part of m.content) {
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'tool-call':
        (toolCalls ??= []).push({
          id: upstreamToolCallId(part.id),
          type: 'function',
          function: { name: part.name, arguments: part.arguments },
        });
        break;
      case 'reasoning':
      case 'redacted-reasoning':
        // Chat completions have no input slot for reasoning, and DeepSeek-style servers
        // reject `reasoning_content` sent back to them.
        break;
      case 'audio-output':
        // OpenAI takes its own audio back by id (`audio: {id}`, one per message), and knows
        // what was said from it. A vendor that generates no audio cannot resolve the id
        // (it is OpenAI's): there the audio goes as its transcript, which is nothing when
        // the client replayed the id alone — the turn is then sent without it. Audio
        // without an id (another vendor's) goes as its transcript everywhere.
        if (audioReplay && part.id !== undefined && audioId === undefined) audioId = part.id;
        else text += part.transcript;
        break;
      case 'image-output':
        // Assistant messages take text only on this wire: a generated image is left out.
        break;
      default:
        assertNever(part);
    }
  }
  // An empty string rather than null: some compatible servers reject null content even
  // beside tool_calls, and OpenAI accepts both.
  const msg: OpenAIChatAssistantMessage = { role: 'assistant', content: text };
  if (toolCalls !== undefined) msg.tool_calls = toolCalls;
  if (audioId !== undefined) msg.audio = { id: audioId };
  if (m.name !== undefined) msg.name = m.name;
  return msg;
}

function toolResultText(part: ToolResultPart): string {
  if (typeof part.content === 'string') return part.content;
  // Tool messages carry text only on this wire; images in a tool result are dropped
  // (OpenAI rejects image parts in `tool` messages).
  let text = '';
  let first = true;
  for (const p of part.content) {
    if (p.type !== 'text') continue;
    text = first ? p.text : `${text}\n${p.text}`;
    first = false;
  }
  return text;
}

function joinText(parts: ReadonlyArray<{ text: string }>, sep: string): string {
  if (parts.length === 1) return parts[0]!.text;
  let text = '';
  for (let i = 0; i < parts.length; i++) text = i === 0 ? parts[i]!.text : text + sep + parts[i]!.text;
  return text;
}

/** OpenAI refuses tool-call ids longer than this. */
const MAX_TOOL_CALL_ID = 40;

/**
 * The id a tool call travels under. Ids other providers handed out can be long (the google
 * adapter carries Gemini's thought signature inside its ids), so those are replaced by a
 * digest: the same on the call and on its result, so the two still match.
 */
export function upstreamToolCallId(id: string): string {
  if (id.length <= MAX_TOOL_CALL_ID) return id;
  return `call_${createHash('sha256').update(id).digest('base64url').slice(0, 32)}`;
}
