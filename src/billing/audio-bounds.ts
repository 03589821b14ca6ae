import type { SpeechTask, TranscriptionTask } from '../canonical/task.ts';
import { audioSeconds } from './compute-cost.ts';

// What bounds the hold of audio models billed per token (gpt-4o-mini-tts, gpt-4o-transcribe),
// whose token counts are known only after the call (docs/audio.md, docs/billing.md). The
// vendors' own estimates are about 21 output tokens a second of speech (≈1.4 per character)
// and 17 input tokens a second of transcribed audio; the bounds leave room above them.

/** Audio output tokens held per character of a speech input (at any speed). */
export const SPEECH_TOKENS_PER_CHARACTER = 8;
/** Audio input tokens held per second of a transcribed file. */
export const TRANSCRIPTION_TOKENS_PER_SECOND = 50;

/** The most audio tokens a speech answer can bill. */
export function speechOutputTokensBound(task: SpeechTask): number {
  return task.input.length * SPEECH_TOKENS_PER_CHARACTER;
}

/** The most audio input tokens a transcription can bill (besides its prompt's text tokens). */
export function transcriptionInputTokensBound(task: TranscriptionTask): number {
  return audioSeconds(task.durationMs ?? 0) * TRANSCRIPTION_TOKENS_PER_SECOND;
}
