import { countTokens, countTokensMax } from './bpe-tokenizers.ts';
import { base64Bytes, HEURISTIC, isTextLike, measureRequest, mediaTypeOf, type PromptMeasure } from './estimate-tokens.ts';
import type { CanonicalRequest, FilePart } from './request.ts';

// Upper bounds of the prompt tokens a vendor may charge, for credit holds (billing.md,
// "The estimator"). Two bounds, one cheap and one tight:
//
// - The byte bound. Every tokenizer vendors use (byte-level BPE: OpenAI, Anthropic, Llama,
//   Qwen, DeepSeek; SentencePiece with byte fallback: Gemini, Mistral) spends at least one
//   UTF-8 byte per token, so a text's byte length bounds its tokens. One native call per
//   text, about 4x a real count on English, exact on the worst scripts.
// - The tokenizer bound. The larger of the o200k_base and cl100k_base counts times
//   VENDOR_MARGIN, for vendors whose tokenizers are not public and may split finer
//   (Anthropic's newer models count up to ~1.35x OpenAI's encodings; Gemini counts
//   fewer), never more than the byte bound. Costs a real tokenization (~0.1 ms per KB).
//
// Media have per-item bounds (below) that cover what the vendors charge for them.

/** How much more a non-public tokenizer may count than the larger OpenAI encoding. */
export const VENDOR_MARGIN = 1.5;
/**
 * One image, any detail: OpenAI tiles (≤ 8 × 170 + 85 = 1,445) and patches (1,536 ×
 * 2.46 = 3,779 on gpt-4.1-nano), Anthropic (≤ ~4,800 at its largest resolution), Gemini
 * (≤ 16 tiles × 258 = 4,128). gpt-4o-mini's inflated image count (≈ 33x, priced down to
 * match) is not covered: the overshoot rule caps what such an answer can cost over its hold.
 */
export const IMAGE_TOKEN_BOUND = 6_500;
/** A PDF page: its text is in the byte count; each page may also be read as an image. */
const PDF_PAGE_TOKENS = IMAGE_TOKEN_BOUND;
/** The smallest a PDF page object can be, when the pages cannot be counted. */
const MIN_PDF_PAGE_BYTES = 50;
/** A file known only by URL: nothing bounds it below the endpoint's context length. */
export const UNBOUNDED_TOKENS = 10_000_000;
/** Gemini's 32 tokens a second (OpenAI's audio counts ~10). */
const AUDIO_TOKENS_PER_SECOND = 32;
/** The lowest bit rates: 8 kHz 16-bit mono for wav/pcm16, 8 kbit/s compressed. */
const WAV_BYTES_PER_SECOND = 16_000;
const COMPRESSED_BYTES_PER_SECOND = 1_000;
/** Anthropic adds a system prompt of up to ~350 tokens when tools are offered. */
const VENDOR_TOOL_PROMPT_TOKENS = 400;
/** Other framing a vendor may add around the conversation (role markers, templates). */
const FRAMING_SLACK_TOKENS = 32;

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function audioBound(data: string, format: string | undefined): number {
  const perSecond = format === 'wav' || format === 'pcm16' ? WAV_BYTES_PER_SECOND : COMPRESSED_BYTES_PER_SECOND;
  return Math.ceil((base64Bytes(data) / perSecond) * AUDIO_TOKENS_PER_SECOND) + 1;
}

function fileBound(part: FilePart, countPages: boolean): number {
  if (part.data === undefined) return UNBOUNDED_TOKENS;
  const bytes = base64Bytes(part.data);
  const mediaType = part.mediaType ?? mediaTypeOf(part.data);
  if (isTextLike(mediaType)) return bytes;
  if (mediaType !== 'application/pdf') return bytes;
  const pages = countPages ? pdfPages(part.data) : 0;
  return bytes + (pages > 0 ? pages : Math.ceil(bytes / MIN_PDF_PAGE_BYTES)) * PDF_PAGE_TOKENS;
}

/**
 * Page objects of a PDF (0 when they hide in compressed object streams), or its largest page
 * count. The dictionary scans are bounded (256 characters) so a hostile file cannot make
 * them quadratic.
 */
function pdfPages(data: string): number {
  const comma = data.startsWith('data:') ? data.indexOf(',') + 1 : 0;
  const text = Buffer.from(data.slice(comma), 'base64').toString('latin1');
  let pages = 0;
  for (const _ of text.matchAll(/\/Type\s*\/Page(?![a-zA-Z])/g)) pages++;
  for (const m of text.matchAll(/\/Type\s*\/Pages\b[^>]{0,256}?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]{0,256}?\/Type\s*\/Pages\b/g)) {
    pages = Math.max(pages, Number(m[1] ?? m[2]));
  }
  return pages;
}

const BYTE_BOUND: PromptMeasure = {
  text: utf8Bytes,
  image: () => IMAGE_TOKEN_BOUND,
  file: (part) => fileBound(part, false),
  audio: audioBound,
  // Ciphertext in base64 is longer than the reasoning it carries.
  redacted: (data) => data.length,
};

const TOKENIZER_BOUND: PromptMeasure = {
  ...BYTE_BOUND,
  text: (text) => (text.length === 0 ? 0 : Math.min(utf8Bytes(text), Math.ceil(countTokensMax(text) * VENDOR_MARGIN))),
  file: (part) => fileBound(part, true),
};

/** What an upstream that reported no usage is charged for the prompt: o200k_base text, typical media. */
const CHARGE_ESTIMATE: PromptMeasure = {
  ...HEURISTIC,
  text: (text) => countTokens(text, 'o200k_base'),
};

function withVendorFraming(req: CanonicalRequest, tokens: number): number {
  const tools = req.tools !== undefined && req.tools.length > 0 ? VENDOR_TOOL_PROMPT_TOKENS : 0;
  return tokens + tools + FRAMING_SLACK_TOKENS;
}

/** Prompt-token upper bounds: `cheap` at once, `tight()` (smaller or equal) on demand. */
export interface PromptTokenBound {
  readonly cheap: number;
  tight(): number;
}

/**
 * A request's prompt-token upper bounds: `cheap` (bytes, computed at once) and `tight()`
 * (a real tokenization, computed on first call, then kept).
 */
export class PromptBound implements PromptTokenBound {
  readonly cheap: number;
  private readonly req: CanonicalRequest;
  private tightTokens = -1;

  constructor(req: CanonicalRequest) {
    this.req = req;
    this.cheap = withVendorFraming(req, measureRequest(req, BYTE_BOUND));
  }

  tight(): number {
    if (this.tightTokens < 0) this.tightTokens = withVendorFraming(this.req, measureRequest(this.req, TOKENIZER_BOUND));
    return this.tightTokens;
  }
}

/** The prompt tokens charged when the upstream reported none (o200k_base; media at their typical counts). */
export function chargedPromptTokens(req: CanonicalRequest): number {
  return measureRequest(req, CHARGE_ESTIMATE);
}

/**
 * `chargedPromptTokens` in two parts, for a caller that counts the texts elsewhere (a
 * tokenizer thread): everything but the texts (framing, media), and the texts to count
 * with o200k_base. Their sum is `chargedPromptTokens(req)`.
 */
export function chargedPromptParts(req: CanonicalRequest): { fixed: number; texts: string[] } {
  const texts: string[] = [];
  const fixed = measureRequest(req, {
    ...CHARGE_ESTIMATE,
    text: (text) => {
      if (text.length > 0) texts.push(text);
      return 0;
    },
  });
  return { fixed, texts };
}

/** The output tokens charged for text the upstream produced but did not count. */
export function chargedTextTokens(text: string): number {
  return countTokens(text, 'o200k_base');
}
