import type { CanonicalRequest, FilePart, ImagePart, Message, ToolResultPart, UserContentPart } from './request.ts';
import { schemaJson } from './schema-json.ts';
import { assertNever } from './stream-part.ts';
import type { TaskRequest } from './task.ts';

// A tokenizer-free estimate of BPE token counts, used for billing reservations, context
// checks, `count_tokens` and the sim's usage. It must be deterministic and cheap (one pass
// over each text's char codes, no regexes; the texts are read in place, and the one
// allocation is the JSON text of tool parameter schemas and a `json_schema` response
// format, serialized to be measured), and close enough to cl100k/o200k-style tokenizers on
// English and code that reservations are neither wildly high nor low.
//
// The method: split the text into runs of one character class and price each run.
// - Letter runs (ASCII letters and `_`; other scripts count double, like their UTF-8
//   bytes): up to 8 units is one token (most common words are), each further 4 units
//   another, which is how BPE treats identifiers, rare words and base64-ish strings.
// - Digit runs: one token per 3 digits (tokenizers split numbers into groups of three).
// - A single space is free: it merges into the next word (` the` is one token). Other
//   whitespace runs (newlines, indentation) cost one token per 8 characters, at least one.
// - Punctuation and symbol runs: one token per 3 characters (`");`, `=>`, `":{"` merge).
// - CJK, kana, hangul and each UTF-16 half of an astral character (emoji): one token
//   per code unit.
// Every run's price grows with its length, so the estimate never drops when text is
// appended: truncating by estimated tokens can search over prefixes.

const NONE = 0;
const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const PUNCT = 4;
const WIDE = 5;

/** The class of each ASCII code unit: one load instead of classify()'s comparisons on the common case. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_CLASS[c] =
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
      ? LETTER
      : c >= 48 && c <= 57
        ? DIGIT
        : c === 32 || (c >= 9 && c <= 13)
          ? SPACE
          : PUNCT;
}

export function estimateTextTokens(text: string): number {
  let tokens = 0;
  let runClass = NONE;
  let runUnits = 0;
  let runFirst = 0;
  const len = text.length;
  let i = 0;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      // A stretch of ASCII of one class in a tight loop: it adds one unit per code unit to
      // the current run (when of the same class: a run goes on across ASCII and the rest).
      const cls = ASCII_CLASS[c]!;
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 128 || ASCII_CLASS[d] !== cls) break;
        j++;
      }
      if (cls !== runClass) {
        tokens += priceRun(runClass, runUnits, runFirst);
        runClass = cls;
        runUnits = 0;
        runFirst = c;
      }
      runUnits += j - i;
      i = j;
      continue;
    }
    const cls = classify(c);
    i++;
    if (cls === WIDE) {
      tokens += priceRun(runClass, runUnits, runFirst) + 1;
      runClass = NONE;
      runUnits = 0;
      continue;
    }
    if (cls !== runClass) {
      tokens += priceRun(runClass, runUnits, runFirst);
      runClass = cls;
      runUnits = 0;
      runFirst = c;
    }
    runUnits += cls === LETTER ? 2 : 1;
  }
  return tokens + priceRun(runClass, runUnits, runFirst);
}

/** The class of a code unit of 128 or more (ASCII's are ASCII_CLASS's). */
function classify(c: number): number {
  if (c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200b)) return SPACE;
  if (c >= 0x2010 && c <= 0x206f) return PUNCT; // dashes, curly quotes, ellipsis
  if (c >= 0xd800 && c <= 0xdfff) return WIDE; // surrogate halves: emoji and rare CJK
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef))
    return WIDE;
  return LETTER;
}

/** A run's price (integer arithmetic: the ceilings below are ⌈units / n⌉ for whole units). */
function priceRun(cls: number, units: number, first: number): number {
  if (units === 0) return 0;
  switch (cls) {
    case LETTER:
      return units <= 8 ? 1 : 1 + ((units - 5) >> 2); // 1 + ⌈(units − 8) / 4⌉
    case DIGIT:
    case PUNCT:
      return ((units + 2) / 3) | 0; // ⌈units / 3⌉
    case SPACE:
      return units === 1 && first === 32 ? 0 : (units + 7) >> 3; // ⌈units / 8⌉
    default:
      return 0;
  }
}

// Overheads follow OpenAI's published chat accounting: a few tokens of framing per
// message and per tool, and a few to prime the reply.
const REPLY_PRIMING_TOKENS = 3;
const MESSAGE_OVERHEAD_TOKENS = 4;
const TOOL_CALL_OVERHEAD_TOKENS = 3;
const TOOLS_SECTION_TOKENS = 12;
const TOOL_OVERHEAD_TOKENS = 8;

/** A low-detail image is one 512px tile; anything else is priced like a 1024x1024 image at high detail. */
export const IMAGE_TOKENS_LOW = 85;
export const IMAGE_TOKENS_HIGH = 765;
/** A file known only by URL: its size is unknown, so a page or two's worth. */
const URL_FILE_TOKENS = 1_000;
/** Speech models charge by duration; ~25 tokens a second sits between OpenAI (~10) and Gemini (32). */
const AUDIO_TOKENS_PER_SECOND = 25;

/**
 * How one measure prices the parts of a prompt: the heuristic estimate below, or the
 * upper bounds of prompt-token-bound.ts. The walk over the request is shared.
 */
export interface PromptMeasure {
  text(text: string): number;
  image(part: ImagePart): number;
  /** A file sent inline (`data`) or by URL. */
  file(part: FilePart): number;
  audio(data: string, format: string | undefined): number;
  /** Encrypted reasoning replayed to its vendor. */
  redacted(data: string): number;
}

/** The heuristic measure: a best guess of what vendors count, not a bound. */
export const HEURISTIC: PromptMeasure = {
  text: estimateTextTokens,
  image: (part) => (part.detail === 'low' ? IMAGE_TOKENS_LOW : IMAGE_TOKENS_HIGH),
  file: (part) => {
    if (part.data === undefined) return URL_FILE_TOKENS;
    const bytes = base64Bytes(part.data);
    // Text-like files tokenize like text; PDFs and other binaries carry far fewer
    // tokens per byte (compressed streams, fonts, embedded images).
    return isTextLike(part.mediaType ?? mediaTypeOf(part.data)) ? Math.ceil(bytes / 4) : Math.ceil(bytes / 16);
  },
  audio: estimateAudioTokens,
  redacted: (data) => Math.ceil(data.length / 4),
};

/** The whole prompt: messages with their framing, tool definitions, and the response schema. */
export function estimateRequestTokens(req: CanonicalRequest): number {
  return measureRequest(req, HEURISTIC);
}

const estimates = new WeakMap<CanonicalRequest, number>();

/**
 * `estimateRequestTokens` of an admitted request, computed once for it: admission plans with
 * it and the messages stream reports it as the input of `message_start`. An admitted request's
 * prompt does not change (the decoders build it; only a default model may be added).
 */
export function admittedPromptTokens(req: CanonicalRequest): number {
  let tokens = estimates.get(req);
  if (tokens === undefined) {
    tokens = measureRequest(req, HEURISTIC);
    estimates.set(req, tokens);
  }
  return tokens;
}

/**
 * The tokens that must fit an endpoint's context window: the whole prompt, except for
 * embeddings, whose inputs are each embedded on their own (the longest input must fit).
 */
export function estimateContextTokens(req: CanonicalRequest, promptTokens: number): number {
  if (req.task?.kind !== 'embedding') return promptTokens;
  let longest = 0;
  for (const input of req.task.input) longest = Math.max(longest, typeof input === 'string' ? estimateTextTokens(input) : input.length);
  return longest;
}

/** The prompt measured with `m`: framing overheads plus each part's measure. */
export function measureRequest(req: CanonicalRequest, m: PromptMeasure): number {
  if (req.task !== undefined) return measureTask(req.task, m);
  let tokens = REPLY_PRIMING_TOKENS;
  for (const message of req.messages) tokens += measureMessage(message, m);
  if (req.tools !== undefined && req.tools.length > 0) {
    tokens += TOOLS_SECTION_TOKENS;
    for (const tool of req.tools) {
      tokens += TOOL_OVERHEAD_TOKENS + m.text(tool.name) + m.text(schemaJson(tool.parameters));
      if (tool.description !== undefined) tokens += m.text(tool.description);
    }
  }
  // Providers inject the response schema into the prompt, so it is paid as input.
  if (req.responseFormat?.type === 'json_schema') tokens += m.text(schemaJson(req.responseFormat.schema));
  return tokens;
}

function measureMessage(message: Message, m: PromptMeasure): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  switch (message.role) {
    case 'system':
      for (const part of message.content) tokens += m.text(part.text);
      return tokens;
    case 'user':
      if (message.name !== undefined) tokens += m.text(message.name);
      for (const part of message.content) tokens += measureUserPart(part, m);
      return tokens;
    case 'assistant':
      if (message.name !== undefined) tokens += m.text(message.name);
      if (message.refusal !== undefined) tokens += m.text(message.refusal);
      for (const part of message.content) {
        switch (part.type) {
          case 'text':
          case 'reasoning':
            tokens += m.text(part.text);
            break;
          case 'tool-call':
            tokens += TOOL_CALL_OVERHEAD_TOKENS + m.text(part.name) + m.text(part.arguments);
            break;
          case 'redacted-reasoning':
            tokens += m.redacted(part.data);
            break;
          case 'audio-output':
            // OpenAI replays the audio itself (by id), other providers read the transcript:
            // both are counted, as an estimate should not come out short.
            tokens += m.text(part.transcript);
            if (part.data.length > 0) tokens += m.audio(part.data, part.format);
            break;
          case 'image-output':
            tokens += m.image({ type: 'image', url: part.url });
            break;
          default:
            assertNever(part);
        }
      }
      return tokens;
    case 'tool':
      for (const part of message.content) tokens += measureToolResult(part, m);
      return tokens;
    default:
      return assertNever(message);
  }
}

function measureUserPart(part: UserContentPart, m: PromptMeasure): number {
  switch (part.type) {
    case 'text':
      return m.text(part.text);
    case 'image':
      return m.image(part);
    case 'file':
      return m.file(part);
    case 'audio':
      return m.audio(part.data, part.format);
    default:
      return assertNever(part);
  }
}

function estimateAudioTokens(data: string, format: string | undefined): number {
  const bytesPerSecond = format === 'wav' || format === 'pcm16' ? 32_000 : 16_000;
  return Math.ceil((base64Bytes(data) / bytesPerSecond) * AUDIO_TOKENS_PER_SECOND);
}

function measureToolResult(part: ToolResultPart, m: PromptMeasure): number {
  let tokens = TOOL_CALL_OVERHEAD_TOKENS + m.text(part.toolCallId);
  if (part.name !== undefined) tokens += m.text(part.name);
  if (typeof part.content === 'string') return tokens + m.text(part.content);
  for (const inner of part.content) tokens += measureUserPart(inner, m);
  return tokens;
}

/** Decoded size of a base64 payload or data: URI, without decoding it. */
export function base64Bytes(data: string): number {
  const comma = data.startsWith('data:') ? data.indexOf(',') : -1;
  return Math.floor(((data.length - comma - 1) * 3) / 4);
}

export function mediaTypeOf(data: string): string {
  if (!data.startsWith('data:')) return '';
  const end = data.indexOf(';');
  return end === -1 ? '' : data.slice(5, end);
}

export function isTextLike(mediaType: string): boolean {
  return mediaType.startsWith('text/') || mediaType.endsWith('json') || mediaType.endsWith('xml') || mediaType.endsWith('yaml');
}

/**
 * A task's text input, the only part of it billed per token before the answer (images and
 * audio files are billed per image or per second, see billing/task-worst-case.ts).
 */
/** An uploaded image to edit, measured as an image of high detail (its bytes are not read for it). */
const EDIT_IMAGE: ImagePart = { type: 'image', url: '', detail: 'high' };

function measureTask(task: TaskRequest, m: PromptMeasure): number {
  switch (task.kind) {
    case 'embedding': {
      let tokens = 0;
      for (const input of task.input) tokens += typeof input === 'string' ? m.text(input) : input.length;
      return tokens;
    }
    case 'image':
      // An edit's input images (and mask) are read as images: gpt-image bills their tokens.
      return m.text(task.prompt) + (task.images?.length ?? 0) * m.image(EDIT_IMAGE) + (task.mask === undefined ? 0 : m.image(EDIT_IMAGE));
    case 'speech':
      return m.text(task.input) + (task.instructions === undefined ? 0 : m.text(task.instructions));
    case 'transcription':
      return task.prompt === undefined ? 0 : m.text(task.prompt);
  }
}
