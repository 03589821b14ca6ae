import { FormData } from 'undici';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { TranscriptionTask } from '../../canonical/task.ts';
import type { Endpoint } from '../../catalog/types.ts';
import type { PartSink, UpstreamTaskRequest } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { openAIUpstreamHeaders, openAIUpstreamUrl } from './openai-upstream-address.ts';
import { malformedTaskAnswer, parseTaskJson, taskUsage } from '../tasks/task-answers.ts';

// OpenAI's `POST /audio/transcriptions` and `/audio/translations` (multipart), spoken by
// OpenAI, Azure, Groq and any OpenAI-compatible server. `json` and `text` are both asked for
// as `json` (its usage is what a token-billed model is charged by; the gateway writes the
// text itself); `verbose_json`, `srt` and `vtt` are asked for as they are.

export function encodeOpenAITranscription(_req: CanonicalRequest, task: TranscriptionTask, endpoint: Endpoint): UpstreamTaskRequest {
  const profile = openAIProfileFor(endpoint.provider);
  const form = new FormData();
  form.append('file', new File([task.file.data], task.file.filename, { type: task.file.contentType }));
  form.append('model', endpoint.upstreamModel);
  form.append('response_format', upstreamFormat(task));
  if (task.language !== undefined) form.append('language', task.language);
  if (task.prompt !== undefined) form.append('prompt', task.prompt);
  if (task.temperature !== undefined) form.append('temperature', String(task.temperature));
  for (const g of task.timestampGranularities ?? []) form.append('timestamp_granularities[]', g);
  const path = task.operation === 'translate' ? 'audio/translations' : 'audio/transcriptions';
  return { url: openAIUpstreamUrl(profile, endpoint, path), headers: openAIUpstreamHeaders(profile, endpoint, null), body: form };
}

function upstreamFormat(task: TranscriptionTask): string {
  return task.responseFormat === 'text' ? 'json' : task.responseFormat;
}

interface TranscriptAnswer {
  text?: unknown;
  language?: unknown;
  duration?: unknown;
  segments?: unknown;
  words?: unknown;
  usage?: { type?: string; input_tokens?: number; output_tokens?: number; seconds?: number };
}

export function decodeOpenAITranscription(task: TranscriptionTask, body: Buffer, endpoint: Endpoint, emit: PartSink): void {
  if (task.responseFormat === 'srt' || task.responseFormat === 'vtt') {
    const formatted = body.toString('utf8');
    emit({ type: 'task-result', result: { kind: 'transcription', text: formatted, formatted } });
    emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
    return;
  }
  const answer = parseTaskJson<TranscriptAnswer>(body, endpoint, emit);
  if (answer === null) return;
  if (typeof answer.text !== 'string') return emit(malformedTaskAnswer(endpoint, 'the transcript has no `text`'));
  const result: { kind: 'transcription'; text: string; language?: string; duration?: number; segments?: unknown[]; words?: unknown[] } = {
    kind: 'transcription',
    text: answer.text,
  };
  if (typeof answer.language === 'string') result.language = answer.language;
  if (typeof answer.duration === 'number' && Number.isFinite(answer.duration)) result.duration = answer.duration;
  if (Array.isArray(answer.segments)) result.segments = answer.segments;
  if (Array.isArray(answer.words)) result.words = answer.words;
  emit({ type: 'task-result', result });
  // Token-billed models (gpt-4o-transcribe) report tokens; whisper reports seconds, which the gateway reads from the file itself.
  const u = answer.usage;
  if (u?.type === 'tokens' && typeof u.input_tokens === 'number' && typeof u.output_tokens === 'number') {
    emit({ type: 'usage', usage: taskUsage(u.input_tokens, u.output_tokens, u) });
  }
  emit({ type: 'finish', reason: { unified: 'stop', raw: null } });
}
