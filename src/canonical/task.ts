// Requests that are not a conversation: embeddings, images, speech, transcription. They
// ride the same CanonicalRequest (`task`) through admission, holds, routing, settlement and
// records as chat does (docs/modalities.md): one path for every surface, so no route can
// bypass a budget. What differs is the upstream call (the adapter's task encoding) and the
// answer's shape (a `task-result` part instead of text deltas).

/** What a model produces; a request may only go to a model of its kind. */
export type ModelKind = 'chat' | 'embedding' | 'image' | 'speech' | 'transcription';

export const MODEL_KINDS = ['chat', 'embedding', 'image', 'speech', 'transcription'] as const satisfies readonly ModelKind[];

type MissingKind = Exclude<ModelKind, (typeof MODEL_KINDS)[number]>;
const kindsComplete: [MissingKind] extends [never] ? true : never = true;
void kindsComplete;

export function isModelKind(value: string): value is ModelKind {
  return (MODEL_KINDS as readonly string[]).includes(value);
}

/** `POST /v1/embeddings`. Inputs are texts or token arrays (never both kinds in one request). */
export interface EmbeddingTask {
  kind: 'embedding';
  /** Texts, or token-id arrays. A single string input is a list of one. */
  input: string[] | number[][];
  encodingFormat: 'float' | 'base64';
  dimensions?: number;
}

/** `POST /v1/images/generations` and `/v1/images/edits`. */
export interface ImageTask {
  kind: 'image';
  operation: 'generate' | 'edit';
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
  /** Absent: OpenAI's default for the model (`url` for dall-e, `b64_json` for the others). */
  responseFormat?: 'b64_json' | 'url';
  outputFormat?: string;
  outputCompression?: number;
  background?: string;
  style?: string;
  moderation?: string;
  /** Edits: how closely the input images are kept (`high` | `low`, gpt-image). */
  inputFidelity?: string;
  /** Edits: the input images and the optional mask, as uploaded. */
  images?: TaskFile[];
  mask?: TaskFile;
}

/** `POST /v1/audio/speech`. */
export interface SpeechTask {
  kind: 'speech';
  input: string;
  voice: string;
  responseFormat: 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';
  speed?: number;
  instructions?: string;
}

/** `POST /v1/audio/transcriptions` and `/v1/audio/translations`. */
export interface TranscriptionTask {
  kind: 'transcription';
  operation: 'transcribe' | 'translate';
  file: TaskFile;
  language?: string;
  prompt?: string;
  responseFormat: 'json' | 'text' | 'srt' | 'vtt' | 'verbose_json';
  timestampGranularities?: string[];
  temperature?: number;
  /** The audio's duration read from the file's header, in milliseconds; null when unreadable. */
  durationMs: number | null;
}

/** An uploaded file (multipart). */
export interface TaskFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export type TaskRequest = EmbeddingTask | ImageTask | SpeechTask | TranscriptionTask;

export interface EmbeddingResult {
  kind: 'embedding';
  /** One vector per input, in input order. */
  vectors: number[][];
}

export interface ImageResult {
  kind: 'image';
  images: { b64: string; revisedPrompt?: string }[];
  /** png, jpeg or webp. */
  outputFormat: string;
  size?: string;
  quality?: string;
  background?: string;
  /** How the vendor answers a client that names no response_format (dall-e: `url`); absent: `b64_json`. */
  defaultFormat?: 'b64_json' | 'url';
}

export interface SpeechResult {
  kind: 'speech';
  audio: Buffer;
  contentType: string;
}

export interface TranscriptionResult {
  kind: 'transcription';
  text: string;
  language?: string;
  /** Seconds. */
  duration?: number;
  segments?: unknown[];
  words?: unknown[];
  /** For text, srt and vtt answers: the upstream's body as sent. */
  formatted?: string;
}

export type TaskResult = EmbeddingResult | ImageResult | SpeechResult | TranscriptionResult;

/** The kind of model a request needs. */
export function requestKind(task: TaskRequest | undefined): ModelKind {
  return task === undefined ? 'chat' : task.kind;
}
