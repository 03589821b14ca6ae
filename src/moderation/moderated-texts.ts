import type { AssistantContentPart, CanonicalRequest, FilePart, ImagePart, TextPart, UserContentPart } from '../canonical/request.ts';
import { dataUriMediaType } from '../canonical/data-uri.ts';
import { assertNever } from '../canonical/assert-never.ts';
import { schemaJson } from '../canonical/schema-json.ts';

// Everything of a request the model will read as text, for moderation: every turn's text
// whatever its role (system, user, assistant, tool), reasoning the client sends back,
// tool-call arguments, tool results, spoken-turn transcripts and refusals, tool definitions
// (name, description, parameter schema), a JSON schema for the answer, and files whose bytes
// are text (decoded from base64 or a data: URI). Not read: images, audio and PDFs (no text
// to match without a model of their own), and files given by URL (not fetched).

const TEXT_MEDIA_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
  'application/csv',
  'application/x-ndjson',
  'application/jsonl',
  'application/toml',
  'application/x-httpd-php',
  'application/x-python',
  'application/rtf',
  'application/xhtml+xml',
]);

/** The texts, in request order. */
export function moderatedTexts(req: CanonicalRequest): string[] {
  const out: string[] = [];
  const add = (text: string | undefined): void => {
    if (text !== undefined && text.length > 0) out.push(text);
  };
  const task = req.task;
  if (task !== undefined) {
    switch (task.kind) {
      case 'embedding':
        for (const input of task.input) if (typeof input === 'string') add(input);
        break;
      case 'image':
        add(task.prompt);
        break;
      case 'speech':
        add(task.input);
        add(task.instructions);
        break;
      case 'transcription':
        add(task.prompt);
        break;
      default:
        assertNever(task);
    }
  }
  for (const m of req.messages) {
    switch (m.role) {
      case 'system':
        for (const p of m.content) add(p.text);
        break;
      case 'user':
        for (const p of m.content) add(userPartText(p));
        break;
      case 'assistant':
        add(m.refusal);
        for (const p of m.content) add(assistantPartText(p));
        break;
      case 'tool':
        for (const p of m.content) {
          if (typeof p.content === 'string') add(p.content);
          else for (const c of p.content) add(toolResultPartText(c));
        }
        break;
      default:
        assertNever(m);
    }
  }
  for (const tool of req.tools ?? []) {
    add(tool.name);
    add(tool.description);
    add(schemaJson(tool.parameters));
  }
  const format = req.responseFormat;
  if (format?.type === 'json_schema') {
    add(format.description);
    add(schemaJson(format.schema));
  }
  return out;
}

// One exhaustive switch per content part union: a new part type fails to compile here until
// it says what of it the model reads, so no content goes unmoderated (or unguarded) silently.

/** What the model reads of a user's content part as text (undefined: nothing, or bytes no text matcher can read). */
function userPartText(p: UserContentPart): string | undefined {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'file':
      return fileText(p);
    case 'image': // pixels: no text to match without a model of their own
    case 'audio':
      return undefined;
    default:
      return assertNever(p);
  }
}

/** What the model reads of an assistant's content part (sent back by the client) as text. */
function assistantPartText(p: AssistantContentPart): string | undefined {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return p.text;
    case 'tool-call':
      return p.arguments;
    case 'audio-output':
      return p.transcript;
    case 'redacted-reasoning': // the vendor's encrypted blob: not text anyone can read
    case 'image-output':
      return undefined;
    default:
      return assertNever(p);
  }
}

/** What the model reads of a part of a tool's result as text. */
function toolResultPartText(p: TextPart | ImagePart): string | undefined {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'image':
      return undefined;
    default:
      return assertNever(p);
  }
}

/** An inline file's text when its media type (or, lacking one, its bytes) says it is text. */
function fileText(part: FilePart): string | undefined {
  if (part.data === undefined) return undefined;
  const mediaType = (dataUriMediaType(part.data) ?? part.mediaType)?.toLowerCase();
  const comma = part.data.startsWith('data:') ? part.data.indexOf(',') : -1;
  const payload = comma >= 0 ? part.data.slice(comma + 1) : part.data;
  const base64 = comma < 0 || part.data.slice(0, comma).endsWith(';base64');
  const bytes = base64 ? Buffer.from(payload, 'base64') : Buffer.from(percentDecoded(payload), 'utf8');
  if (mediaType !== undefined && isTextMediaType(mediaType)) return bytes.toString('utf8');
  if (mediaType !== undefined && mediaType !== 'application/octet-stream') return undefined; // PDFs, images, audio
  return asUtf8Text(bytes);
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // malformed escapes: moderate the text as it stands
  }
}

function isTextMediaType(mediaType: string): boolean {
  const base = mediaType.split(';')[0]!.trim();
  return base.startsWith('text/') || base.endsWith('+json') || base.endsWith('+xml') || TEXT_MEDIA_TYPES.has(base);
}

/** Bytes of no stated type: text when they are valid UTF-8 without NUL. */
function asUtf8Text(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
