import type { CanonicalRequest } from '../../canonical/request.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { TranscriptionResult, TranscriptionTask } from '../../canonical/task.ts';
import { RawAnswer, type ResponseMeta } from '../front-dialect.ts';
import { renderSrt, renderVtt, timedSegments } from './render-subtitles.ts';

// A transcript in the format the client asked for: OpenAI's `json` ({text, usage}),
// `verbose_json` ({task, language, duration, text, segments, words, usage}), or the plain
// `text`, `srt` and `vtt` bodies (the provider's own when it sent them, else rendered here
// from the segments).

const TEXT = 'text/plain; charset=utf-8';

export interface TranscriptUsage {
  type: 'duration' | 'tokens';
  seconds?: number;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  cost?: number;
}

export function encodeTranscriptionResponse(resp: CanonicalResponse, meta: ResponseMeta, req: CanonicalRequest): unknown {
  const task = req.task as TranscriptionTask;
  const result: TranscriptionResult = resp.task?.kind === 'transcription' ? resp.task : { kind: 'transcription', text: '' };
  switch (task.responseFormat) {
    case 'text':
      return new RawAnswer(TEXT, result.formatted ?? `${result.text}\n`);
    case 'srt':
      return new RawAnswer(TEXT, result.formatted ?? renderSrt(timedSegments(result.segments)));
    case 'vtt':
      return new RawAnswer(TEXT, result.formatted ?? renderVtt(timedSegments(result.segments)));
    case 'json':
      return { text: result.text, usage: usage(resp, task, meta) };
    case 'verbose_json': {
      const out: Record<string, unknown> = {
        task: task.operation === 'translate' ? 'translate' : 'transcribe',
        language: result.language ?? task.language ?? 'english',
        duration: result.duration ?? (task.durationMs ?? 0) / 1000,
        text: result.text,
      };
      if (result.segments !== undefined) out.segments = result.segments;
      if (result.words !== undefined) out.words = result.words;
      out.usage = usage(resp, task, meta);
      return out;
    }
  }
}

/** Seconds billed (duration-priced models) or the tokens the provider reported, with the cost. */
function usage(resp: CanonicalResponse, task: TranscriptionTask, meta: ResponseMeta): TranscriptUsage {
  // A provider that bills tokens reports output tokens; a per-second one reports none (the usage is the gateway's estimate).
  const u = resp.usage ?? null;
  const out: TranscriptUsage =
    u !== null && u.output > 0
      ? { type: 'tokens', input_tokens: u.input, output_tokens: u.output, total_tokens: u.input + u.output }
      : { type: 'duration', seconds: Math.ceil((task.durationMs ?? 0) / 1000) };
  if (meta.cost !== undefined) out.cost = meta.cost;
  return out;
}
