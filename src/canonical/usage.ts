// Normalized token usage. `input` is the whole prompt, cache reads and writes included,
// and `output` the whole completion, reasoning included, whatever the vendor's own
// convention; adapters convert so that billing reads one meaning.
export interface Usage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
  audioInput?: number;
  audioOutput?: number;
  images?: number;
  /** Images generated (image models priced per image). */
  imagesOutput?: number;
  /** The generated images' size and quality (`1024x1024`, `high`), when known: per-image prices may depend on them. */
  imageSize?: string;
  imageQuality?: string;
  /** Of `input`, the tokens of input images (gpt-image edits), priced at `image_prompt`. */
  imageInputTokens?: number;
  /** Characters of input synthesized (speech models priced per character). */
  characters?: number;
  /** Milliseconds of input audio (transcription models priced per second). */
  audioMs?: number;
  /** Web searches the gateway ran for the answer (priced per search by the operator's `search:`). */
  webSearchRequests?: number;
  /** The provider's own usage object, untouched. */
  raw?: unknown;
}
