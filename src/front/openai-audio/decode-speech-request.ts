import type { CanonicalRequest } from '../../canonical/request.ts';
import type { SpeechTask } from '../../canonical/task.ts';
import { decodeModelList } from '../shared/decode-model-list.ts';
import { decodeProviderPreferences } from '../shared/decode-provider-preferences.ts';
import { readEndUser } from '../shared/decode-client-strings.ts';
import { checkJsonDepth } from '../shared/check-json-depth.ts';
import { invalidType, invalidValue, isObject, missingParameter, readEnum, readNumber, readString } from '../shared/read-fields.ts';

// OpenAI's speech request (`POST /v1/audio/speech`, JSON) → the canonical request with a
// speech task. Like chat: `models`/`fallbacks` and `provider` preferences.

/** OpenAI's own limit on `input`. */
export const MAX_SPEECH_INPUT_CHARS = 4096;
/** A voice name (OpenAI's are short words; other servers name theirs); a longer one is a mistake. */
const MAX_VOICE_CHARS = 128;
const MAX_INSTRUCTIONS_CHARS = 4096;

export const SPEECH_FORMATS: ReadonlySet<SpeechTask['responseFormat']> = new Set(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
const STREAM_FORMATS: ReadonlySet<'audio' | 'sse'> = new Set(['audio', 'sse']);
const KNOWN = new Set([
  'model',
  'models',
  'fallbacks',
  'input',
  'voice',
  'response_format',
  'speed',
  'instructions',
  'stream_format',
  'user',
  'provider',
]);

export function decodeSpeechRequest(body: unknown): CanonicalRequest {
  if (!isObject(body)) throw invalidType('body', 'a JSON object', body);
  checkJsonDepth(body);
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key)) throw invalidValue(key, `unknown parameter for speech (accepted: ${[...KNOWN].join(', ')})`);
  }
  const input = body.input;
  if (input === undefined || input === null) throw missingParameter('input');
  if (typeof input !== 'string') throw invalidType('input', 'a string', input);
  if (input.length === 0) throw invalidValue('input', 'must not be an empty string');
  if (input.length > MAX_SPEECH_INPUT_CHARS)
    throw invalidValue('input', `at most ${MAX_SPEECH_INPUT_CHARS} characters, got ${input.length}`);
  const task: SpeechTask = {
    kind: 'speech',
    input,
    voice: readVoice(body.voice),
    responseFormat: readEnum(body, 'response_format', SPEECH_FORMATS) ?? 'mp3',
  };
  const speed = readNumber(body, 'speed', { min: 0.25, max: 4 });
  if (speed !== undefined) task.speed = speed;
  const instructions = readString(body, 'instructions');
  if (instructions !== undefined) {
    if (instructions.length > MAX_INSTRUCTIONS_CHARS) throw invalidValue('instructions', `at most ${MAX_INSTRUCTIONS_CHARS} characters`);
    task.instructions = instructions;
  }
  // The answer is the audio file itself; OpenAI's SSE variant of it is not offered.
  if (readEnum(body, 'stream_format', STREAM_FORMATS) === 'sse')
    throw invalidValue('stream_format', "only 'audio' is served (the answer is the audio file)");
  const req: CanonicalRequest = { models: decodeModelList(body), messages: [], sampling: {}, stream: false, extra: {}, task };
  const provider = decodeProviderPreferences(body, 'provider');
  if (provider !== undefined) req.provider = provider;
  const user = readEndUser(body, 'user');
  if (user !== undefined) req.user = user;
  return req;
}

/** A voice name, or OpenAI's custom voice object `{id}`. */
function readVoice(voice: unknown): string {
  if (voice === undefined || voice === null) throw missingParameter('voice');
  const name = isObject(voice) ? voice.id : voice;
  if (typeof name !== 'string') throw invalidType('voice', 'a voice name (a string) or {id: string}', voice);
  if (name.length === 0 || name.length > MAX_VOICE_CHARS) throw invalidValue('voice', `a name of 1 to ${MAX_VOICE_CHARS} characters`);
  return name;
}
