import type { CanonicalRequest } from '../../canonical/request.ts';
import type { TaskFile, TranscriptionTask } from '../../canonical/task.ts';
import { AUDIO_CONTAINERS, readAudioDuration } from '../../canonical/audio-duration/read-audio-duration.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { invalidType, invalidValue, missingParameter } from '../shared/read-fields.ts';

// OpenAI's transcription and translation requests (`POST /v1/audio/transcriptions`,
// `/v1/audio/translations`: multipart/form-data) → the canonical request with a
// transcription task. The audio's duration is read from the file's own header here, before
// admission, so that the hold bounds a per-second price; a file whose duration cannot be
// read is refused (docs/audio.md).

/** OpenAI's own upload limit. A larger file is a 413. */
export const MAX_AUDIO_FILE_BYTES = 25 * 1024 * 1024;
const MAX_PROMPT_CHARS = 8192;
const MAX_LANGUAGE_CHARS = 16;
const MAX_FILENAME_CHARS = 255;

export const TRANSCRIPT_FORMATS: ReadonlySet<TranscriptionTask['responseFormat']> = new Set(['json', 'text', 'srt', 'vtt', 'verbose_json']);
const GRANULARITIES = new Set(['word', 'segment']);

const COMMON = ['file', 'model', 'models', 'prompt', 'response_format', 'temperature', 'provider', 'stream'];
const KNOWN: Record<TranscriptionTask['operation'], ReadonlySet<string>> = {
  transcribe: new Set([...COMMON, 'language', 'timestamp_granularities[]', 'timestamp_granularities']),
  translate: new Set(COMMON),
};

export function decodeTranscriptionRequest(body: unknown): CanonicalRequest {
  return decodeAudioForm(body, 'transcribe');
}

export function decodeTranslationRequest(body: unknown): CanonicalRequest {
  return decodeAudioForm(body, 'translate');
}

/** A parsed multipart form as the server hands it over (server/body/parse-multipart-body.ts's MultipartForm). */
export interface AudioForm {
  readonly fields: ReadonlyMap<string, readonly string[]>;
  readonly files: ReadonlyMap<string, readonly TaskFile[]>;
  field(name: string): string | undefined;
}

function isForm(body: unknown): body is AudioForm {
  return typeof body === 'object' && body !== null && (body as AudioForm).fields instanceof Map && (body as AudioForm).files instanceof Map;
}

function decodeAudioForm(body: unknown, operation: TranscriptionTask['operation']): CanonicalRequest {
  if (!isForm(body)) {
    throw new GatewayError(
      'invalid_parameter',
      'This endpoint takes multipart/form-data with the audio in a `file` field (as the openai SDK sends it).',
      { param: 'body' },
    );
  }
  const known = KNOWN[operation];
  for (const name of [...body.fields.keys(), ...body.files.keys()]) {
    if (!known.has(name))
      throw invalidValue(
        name,
        `unknown parameter for ${operation === 'transcribe' ? 'transcriptions' : 'translations'} (accepted: ${[...known].join(', ')})`,
      );
  }
  const file = readFile(body);
  const { container, durationMs } = readAudioDuration(file.data);
  if (durationMs === null) {
    throw invalidValue(
      'file',
      container === null
        ? `not an audio file this gateway can measure (supported: ${AUDIO_CONTAINERS.join(', ')}; the duration bounds the charge)`
        : `the ${container} file's header does not say how long the audio is (it is truncated or malformed)`,
    );
  }
  if (!file.filename.includes('.')) file.filename = `${file.filename || 'audio'}.${container === 'mp4' ? 'm4a' : container}`;
  const responseFormat = readFormat(body);
  const task: TranscriptionTask = { kind: 'transcription', operation, file, responseFormat, durationMs };
  const prompt = body.field('prompt');
  if (prompt !== undefined) {
    if (prompt.length > MAX_PROMPT_CHARS) throw invalidValue('prompt', `at most ${MAX_PROMPT_CHARS} characters`);
    task.prompt = prompt;
  }
  const language = body.field('language');
  if (language !== undefined && language !== '') {
    if (language.length > MAX_LANGUAGE_CHARS || !/^[A-Za-z-]+$/.test(language))
      throw invalidValue('language', 'an ISO-639-1 language code such as "en"');
    task.language = language;
  }
  const temperature = body.field('temperature');
  if (temperature !== undefined) {
    const t = Number(temperature);
    if (temperature.trim() === '' || !Number.isFinite(t) || t < 0 || t > 1) throw invalidValue('temperature', 'a number from 0 to 1');
    task.temperature = t;
  }
  const granularities = [...(body.fields.get('timestamp_granularities[]') ?? []), ...(body.fields.get('timestamp_granularities') ?? [])];
  if (granularities.length > 0) {
    for (const g of granularities)
      if (!GRANULARITIES.has(g)) throw invalidValue('timestamp_granularities[]', `'word' or 'segment', got '${g.slice(0, 32)}'`);
    if (responseFormat !== 'verbose_json') throw invalidValue('timestamp_granularities[]', "needs response_format 'verbose_json'");
    task.timestampGranularities = [...new Set(granularities)];
  }
  const stream = body.field('stream');
  if (stream !== undefined && stream !== 'false')
    throw invalidValue('stream', 'streamed transcripts are not served (send false or leave it out)');
  const models = body.fields.get('models');
  const req: CanonicalRequest = {
    models: decodeModelList({ model: body.field('model'), models }),
    messages: [],
    sampling: {},
    stream: false,
    extra: {},
    task,
  };
  const provider = body.field('provider');
  if (provider !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(provider);
    } catch {
      throw invalidType('provider', 'a JSON object (as text in the form field)', provider);
    }
    const prefs = decodeProviderPreferences({ provider: parsed }, 'provider');
    if (prefs !== undefined) req.provider = prefs;
  }
  return req;
}

function readFile(form: AudioForm): TaskFile {
  const files = form.files.get('file');
  if (files === undefined || files.length === 0) {
    if (form.fields.has('file')) throw invalidType('file', 'an uploaded file (a form part with a filename)', form.field('file'));
    throw missingParameter('file');
  }
  const file = files[0];
  if (file === undefined || files.length > 1) throw invalidValue('file', 'exactly one file per request');
  if (file.data.length > MAX_AUDIO_FILE_BYTES) {
    throw new GatewayError(
      'request_too_large',
      `The audio file is larger than ${MAX_AUDIO_FILE_BYTES / (1024 * 1024)} MB (${file.data.length} bytes).`,
      { param: 'file' },
    );
  }
  if (file.data.length === 0) throw invalidValue('file', 'the file is empty');
  if (file.filename.length > MAX_FILENAME_CHARS) throw invalidValue('file', `a file name of at most ${MAX_FILENAME_CHARS} characters`);
  // The claimed type goes upstream as the part's type; one that is not a plain media type is dropped.
  const contentType =
    file.contentType.length <= 128 && /^[\w.+-]+\/[\w.+-]+$/.test(file.contentType) ? file.contentType : 'application/octet-stream';
  return { ...file, contentType };
}

function readFormat(form: AudioForm): TranscriptionTask['responseFormat'] {
  const value = form.field('response_format');
  if (value === undefined || value === '') return 'json';
  if (!TRANSCRIPT_FORMATS.has(value as TranscriptionTask['responseFormat'])) {
    throw invalidValue('response_format', `one of ${[...TRANSCRIPT_FORMATS].join(', ')}`);
  }
  return value as TranscriptionTask['responseFormat'];
}
