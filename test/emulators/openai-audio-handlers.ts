import type { ServerResponse } from 'node:http';
import { sendJson } from './emulator-http.ts';
import type { RecordedTaskRequest, TaskHandler } from './openai-tasks-emulator.ts';

// OpenAI's audio endpoints as an OpenAI-compatible server answers them: speech as audio
// bytes (or, asked with `stream_format: "sse"`, as speech.audio.delta events and a done
// event with token usage), transcripts and translations from a multipart upload in every
// response_format. Answers are deterministic so tests can check them exactly.

/** The emulator's "audio" for a speech request: recognizable bytes, not a real file. */
export function emulatorSpeechBytes(model: string, voice: string, input: string, format: string): Buffer {
  return Buffer.from(`EMULATED-${format.toUpperCase()}|${model}|${voice}|${input}`, 'utf8');
}

/** Token usage the emulator reports for a token-billed speech model. */
export const EMULATOR_SPEECH_USAGE = { input_tokens: 7, output_tokens: 250, total_tokens: 257 };
/** Token usage the emulator reports for a transcription model whose name says gpt-4o. */
export const EMULATOR_TRANSCRIBE_USAGE = {
  type: 'tokens',
  input_tokens: 90,
  input_token_details: { text_tokens: 4, audio_tokens: 86 },
  output_tokens: 12,
  total_tokens: 102,
};

const FORMAT_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

function speech(req: RecordedTaskRequest, res: ServerResponse): void {
  const body = req.json as { model?: string; input?: string; voice?: string; response_format?: string; stream_format?: string } | null;
  if (typeof body?.input !== 'string' || typeof body.voice !== 'string') {
    return sendJson(res, 400, {
      error: { message: "'input' and 'voice' are required", type: 'invalid_request_error', param: 'input', code: null },
    });
  }
  const format = body.response_format ?? 'mp3';
  const audio = emulatorSpeechBytes(body.model ?? '', body.voice, body.input, format);
  if (body.stream_format === 'sse') {
    const half = Math.floor(audio.length / 2);
    const events = [
      { type: 'speech.audio.delta', audio: audio.subarray(0, half).toString('base64') },
      { type: 'speech.audio.delta', audio: audio.subarray(half).toString('base64') },
      { type: 'speech.audio.done', usage: EMULATOR_SPEECH_USAGE },
    ];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
    return;
  }
  res.writeHead(200, { 'content-type': FORMAT_TYPES[format] ?? 'application/octet-stream' });
  res.end(audio);
}

/** The transcript the emulator "hears": the upload's name and size, so a test sees the bytes arrived. */
export function emulatorTranscript(filename: string, size: number, operation: string): string {
  return `${operation === 'translate' ? 'Translated' : 'Heard'} ${filename} (${size} bytes)`;
}

function transcription(operation: 'transcribe' | 'translate'): TaskHandler {
  return (req, res) => {
    void (async () => {
      let form: FormData;
      try {
        form = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
      } catch {
        return sendJson(res, 400, {
          error: { message: 'expected multipart/form-data', type: 'invalid_request_error', param: null, code: null },
        });
      }
      const file = form.get('file');
      if (file === null || typeof file === 'string')
        return sendJson(res, 400, { error: { message: "'file' is required", type: 'invalid_request_error', param: 'file', code: null } });
      const model = String(form.get('model') ?? '');
      const format = String(form.get('response_format') ?? 'json');
      const text = emulatorTranscript(file.name, file.size, operation);
      const usage = model.includes('gpt-4o') ? EMULATOR_TRANSCRIBE_USAGE : { type: 'duration', seconds: 3 };
      const segments = [
        {
          id: 0,
          seek: 0,
          start: 0,
          end: 2.5,
          text: ` ${text}`,
          tokens: [1, 2],
          temperature: 0,
          avg_logprob: -0.1,
          compression_ratio: 1,
          no_speech_prob: 0,
        },
      ];
      switch (format) {
        case 'json':
          return sendJson(res, 200, { text, usage });
        case 'verbose_json':
          return sendJson(res, 200, {
            task: operation,
            language: 'english',
            duration: 2.5,
            text,
            segments,
            words: form.getAll('timestamp_granularities[]').includes('word') ? [{ word: 'Heard', start: 0, end: 0.4 }] : undefined,
            usage,
          });
        case 'text':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          return void res.end(`${text}\n`);
        case 'srt':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          return void res.end(`1\n00:00:00,000 --> 00:00:02,500\n${text}\n\n`);
        case 'vtt':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          return void res.end(`WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n${text}\n\n`);
        default:
          return sendJson(res, 400, {
            error: { message: `bad response_format ${format}`, type: 'invalid_request_error', param: 'response_format', code: null },
          });
      }
    })();
  };
}

/** The audio handlers, by path under `/v1`. */
export const OPENAI_AUDIO_HANDLERS: readonly [string, TaskHandler][] = [
  ['/v1/audio/speech', speech],
  ['/v1/audio/transcriptions', transcription('transcribe')],
  ['/v1/audio/translations', transcription('translate')],
];

/** The same handlers at Azure's deployment paths (`/openai/deployments/{name}/audio/...`). */
export function azureAudioHandlers(deployment: string): [string, TaskHandler][] {
  return OPENAI_AUDIO_HANDLERS.map(([path, handler]) => [`/openai/deployments/${deployment}${path.slice(3)}`, handler]);
}
