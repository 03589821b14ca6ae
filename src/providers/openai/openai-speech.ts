import type { CanonicalRequest } from '../../canonical/request.ts';
import type { SpeechTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { openAIUpstreamHeaders, openAIUpstreamUrl } from './openai-upstream-address.ts';
import { malformedTaskAnswer, taskUsage } from '../tasks/task-answers.ts';
import { SPEECH_CONTENT_TYPES } from '../tasks/speech-formats.ts';

// OpenAI's `POST /audio/speech`, spoken by OpenAI, Azure (under the deployment), Groq and
// any OpenAI-compatible server. The answer is the audio file. A model billed per token
// (gpt-4o-mini-tts: its endpoint has a `completion` price) reports its tokens only in the
// SSE form of the answer, so that form is asked for and its audio deltas joined: the
// client still gets one audio file (docs/audio.md).

export function encodeOpenAISpeech(_req: CanonicalRequest, task: SpeechTask, endpoint: Endpoint): UpstreamTaskRequest {
  const profile = openAIProfileFor(endpoint.provider);
  const body: Record<string, unknown> = {
    model: endpoint.upstreamModel,
    input: task.input,
    voice: task.voice,
    response_format: task.responseFormat,
  };
  if (task.speed !== undefined) body.speed = task.speed;
  if (task.instructions !== undefined) body.instructions = task.instructions;
  if (billsTokens(endpoint)) body.stream_format = 'sse';
  return {
    url: openAIUpstreamUrl(profile, endpoint, 'audio/speech'),
    headers: openAIUpstreamHeaders(profile, endpoint, 'application/json'),
    body: JSON.stringify(body),
  };
}

/** Priced per output token: the vendor's usage is needed, and only its SSE answer carries it. */
export function billsTokens(endpoint: Endpoint): boolean {
  return endpoint.compiledPricing.completion !== 0n;
}

/** A binary audio answer (not the SSE form, not a JSON body): handed to the client as it arrives. */
export function isAudioAnswer(headers: Record<string, string | string[] | undefined>): boolean {
  const type = String(headers['content-type'] ?? '').toLowerCase();
  return type.startsWith('audio/') || type.startsWith('application/octet-stream');
}

export function decodeOpenAISpeech(
  task: SpeechTask,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
  endpoint: Endpoint,
  emit: PartSink,
): void {
  const type = String(headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('text/event-stream')) return decodeSpeechEvents(task, body, endpoint, emit);
  if (type.startsWith('application/json') || body.length === 0) {
    return emit(malformedTaskAnswer(endpoint, body.length === 0 ? 'the audio is empty' : 'expected audio, got JSON'));
  }
  const contentType = type.startsWith('audio/') ? String(headers['content-type']) : SPEECH_CONTENT_TYPES[task.responseFormat];
  emit({ type: 'task-result', result: { kind: 'speech', audio: body, contentType } });
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}

interface SpeechEvent {
  type?: string;
  audio?: string;
  usage?: { input_tokens?: number; output_tokens?: number; total_tokens?: number };
}

/** `speech.audio.delta` events (base64 audio) and the final `speech.audio.done` with the usage. */
function decodeSpeechEvents(task: SpeechTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  const chunks: Buffer[] = [];
  let usage: SpeechEvent['usage'] | undefined;
  for (const line of body.toString('utf8').split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    let event: SpeechEvent;
    try {
      event = JSON.parse(data) as SpeechEvent;
    } catch {
      return emit(malformedTaskAnswer(endpoint, 'a speech event is not JSON'));
    }
    if (event.type === 'speech.audio.delta' && typeof event.audio === 'string') chunks.push(Buffer.from(event.audio, 'base64'));
    else if (event.type === 'speech.audio.done') usage = event.usage;
  }
  if (chunks.length === 0) return emit(malformedTaskAnswer(endpoint, 'the speech events carry no audio'));
  emit({
    type: 'task-result',
    result: { kind: 'speech', audio: Buffer.concat(chunks), contentType: SPEECH_CONTENT_TYPES[task.responseFormat] },
  });
  if (usage !== undefined && typeof usage.input_tokens === 'number' && typeof usage.output_tokens === 'number') {
    emit({ type: 'usage', usage: taskUsage(usage.input_tokens, usage.output_tokens, usage) });
  }
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
