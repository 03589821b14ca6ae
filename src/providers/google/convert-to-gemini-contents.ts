import type { AssistantMessage, AudioPart, FilePart, ImagePart, Message, ToolMessage, UserContentPart } from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { SKIP_SIGNATURE, signatureFromToolCallId } from './gemini-tool-call-id.ts';
import type { GeminiContent, GeminiPart } from './gemini-wire-types.ts';

// Canonical messages → Gemini `contents` and `systemInstruction`.
// - Every system message (mid-conversation ones too) joins `systemInstruction`: Gemini has
//   no other place for instructions.
// - Assistant turns are `model` contents; tool results go back as `functionResponse` parts
//   of a `user` content, named after the call they answer. Adjacent contents of one role
//   are merged, so the results of parallel calls travel together as Gemini expects.
// - The first function call of each model turn carries its thought signature (from the
//   part, or from its id: gemini-tool-call-id.ts), or Google's skip sentinel when it has
//   none; later calls carry theirs only if they had one (Gemini signs only the first).
// - Reasoning in the history is not sent back: Gemini's own lives in the signatures, and
//   another model's would be read as instructions. cache_control hints have no field.
// - Generated images in the history go back as model parts (inline, or by URL); generated
//   audio as its transcript.

export interface GeminiPrompt {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
}

export function convertToGeminiContents(messages: readonly Message[]): GeminiPrompt {
  const contents: GeminiContent[] = [];
  const system: Array<{ text: string }> = [];
  const callNames = new Map<string, string>();
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        for (const part of m.content) if (part.text.length > 0) system.push({ text: part.text });
        break;
      case 'user':
        push(contents, 'user', m.content.map(convertUserPart));
        break;
      case 'assistant':
        push(contents, 'model', convertAssistantParts(m, callNames));
        break;
      case 'tool':
        push(contents, 'user', convertToolResults(m, callNames));
        break;
      default:
        assertNever(m);
    }
  }
  const prompt: GeminiPrompt = { contents };
  if (system.length > 0) prompt.systemInstruction = { parts: system };
  return prompt;
}

function push(contents: GeminiContent[], role: 'user' | 'model', parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last !== undefined && last.role === role) {
    for (const p of parts) last.parts.push(p);
    return;
  }
  contents.push({ role, parts });
}

function convertUserPart(part: UserContentPart): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image':
      return convertImage(part);
    case 'file':
      return convertFile(part);
    case 'audio':
      return convertAudio(part);
    default:
      return assertNever(part);
  }
}

function convertImage(part: ImagePart): GeminiPart {
  const inline = parseDataUri(part.url);
  if (inline !== undefined) return { inlineData: inline };
  const mimeType = mediaTypeFromUrl(part.url);
  return { fileData: mimeType === undefined ? { fileUri: part.url } : { mimeType, fileUri: part.url } };
}

function convertFile(part: FilePart): GeminiPart {
  if (part.data !== undefined) {
    const inline = parseDataUri(part.data);
    if (inline !== undefined)
      return { inlineData: part.mediaType === undefined ? inline : { mimeType: part.mediaType, data: inline.data } };
    // A bare payload: the spec's files are PDFs unless the client says otherwise.
    return { inlineData: { mimeType: part.mediaType ?? 'application/pdf', data: part.data } };
  }
  if (part.url !== undefined) {
    const mimeType = part.mediaType ?? mediaTypeFromUrl(part.url);
    return { fileData: mimeType === undefined ? { fileUri: part.url } : { mimeType, fileUri: part.url } };
  }
  throw new GatewayError('invalid_message', 'A file part has neither data nor a url.');
}

function convertAudio(part: AudioPart): GeminiPart {
  const format = part.format.toLowerCase();
  return { inlineData: { mimeType: format.includes('/') ? format : `audio/${format}`, data: part.data } };
}

function convertAssistantParts(m: AssistantMessage, callNames: Map<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let firstCall = true;
  for (const part of m.content) {
    switch (part.type) {
      case 'text':
        if (part.text.length > 0) parts.push({ text: part.text });
        break;
      case 'tool-call': {
        callNames.set(part.id, part.name);
        const out: GeminiPart = { functionCall: { name: part.name, args: parseArguments(part.arguments) } };
        const signature = part.signature ?? signatureFromToolCallId(part.id) ?? (firstCall ? SKIP_SIGNATURE : undefined);
        if (signature !== undefined) out.thoughtSignature = signature;
        firstCall = false;
        parts.push(out);
        break;
      }
      case 'reasoning':
      case 'redacted-reasoning':
        break;
      case 'audio-output':
        // Spoken output goes back as its transcript: what the model said, in words.
        if (part.transcript.length > 0) parts.push({ text: part.transcript });
        break;
      case 'image-output':
        // An image the model made goes back inline (the next turn may edit it), or as a
        // file reference when it is a URL.
        parts.push(convertImage({ type: 'image', url: part.url }));
        break;
      default:
        assertNever(part);
    }
  }
  return parts;
}

function convertToolResults(m: ToolMessage, callNames: ReadonlyMap<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const result of m.content) {
    const name = callNames.get(result.toolCallId) ?? result.name;
    if (name === undefined) {
      throw new GatewayError(
        'invalid_message',
        `The tool result for "${result.toolCallId}" answers no tool call in the conversation and has no name; Gemini needs the function's name.`,
      );
    }
    // Google's documented keys: `output` for a result, `error` for a failure.
    const text = toolResultText(result.content);
    parts.push({ functionResponse: { name, response: result.isError === true ? { error: text } : { output: text } } });
  }
  return parts;
}

/** Images in a tool result are dropped: older Gemini models take no parts in a function response. */
function toolResultText(content: ToolMessage['content'][number]['content']): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const p of content) if (p.type === 'text') text = text.length === 0 ? p.text : `${text}\n${p.text}`;
  return text;
}

/** The model's arguments as an object; Gemini takes nothing else (a cut-off call becomes `{}`). */
function parseArguments(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseDataUri(uri: string): { mimeType: string; data: string } | undefined {
  if (!uri.startsWith('data:')) return undefined;
  const comma = uri.indexOf(',');
  const semi = uri.indexOf(';');
  if (comma === -1) return undefined;
  const mimeType = uri.slice(5, semi !== -1 && semi < comma ? semi : comma) || 'application/octet-stream';
  return { mimeType, data: uri.slice(comma + 1) };
}

const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  wav: 'audio/wav',
  mp3: 'audio/mp3',
  txt: 'text/plain',
};

function mediaTypeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0]!;
  const dot = path.lastIndexOf('.');
  return dot === -1 ? undefined : EXTENSION_TYPES[path.slice(dot + 1).toLowerCase()];
}
