import type { StreamPart } from '../../canonical/stream-part.ts';
import type { SpeechTask, TranscriptionTask } from '../../canonical/task.ts';
import { simPcm, wavComment, wavFile } from './sim-wav.ts';

// The sim's audio models: `switchyard/sim-speech` speaks a real WAV (raw samples for `pcm`;
// it encodes no other format: every other format is answered as WAV, `audio/wav`), and
// `switchyard/sim-transcribe` hears one: the text a sim voice spoke (its INFO comment), else
// a fixed sentence naming the duration read from the file's header; split into timed
// segments over that duration. The gateway renders text, srt and vtt from them.

const DONE: StreamPart = { type: 'finish', reason: { unified: 'stop', raw: null } };

export function simSpeech(task: SpeechTask): StreamPart[] {
  const pcm = simPcm(task.input, task.speed ?? 1);
  const result =
    task.responseFormat === 'pcm'
      ? { kind: 'speech' as const, audio: pcm, contentType: 'audio/pcm' }
      : { kind: 'speech' as const, audio: wavFile(pcm, task.input), contentType: 'audio/wav' };
  return [{ type: 'task-result', result }, DONE];
}

/** Words per segment of a sim transcript. */
const WORDS_PER_SEGMENT = 8;

export function simTranscription(task: TranscriptionTask): StreamPart[] {
  const seconds = (task.durationMs ?? 0) / 1000;
  const heard = wavComment(task.file.data);
  const text = heard ?? `The sim heard ${seconds.toFixed(1)} seconds of audio.`;
  const words = text.split(/\s+/).filter((w) => w !== '');
  const chars = Math.max(
    1,
    words.reduce((n, w) => n + w.length, 0),
  );
  // Each word takes a share of the duration proportional to its length.
  let clock = 0;
  const timed = words.map((word) => {
    const start = clock;
    clock += (seconds * word.length) / chars;
    return { word, start: round(start), end: round(clock) };
  });
  const segments: unknown[] = [];
  for (let i = 0; i < timed.length; i += WORDS_PER_SEGMENT) {
    const group = timed.slice(i, i + WORDS_PER_SEGMENT);
    segments.push({
      id: segments.length,
      seek: 0,
      start: group[0]!.start,
      end: group.at(-1)!.end,
      text: ` ${group.map((w) => w.word).join(' ')}`,
      tokens: [],
      temperature: task.temperature ?? 0,
      avg_logprob: 0,
      compression_ratio: 1,
      no_speech_prob: 0,
    });
  }
  const result: { kind: 'transcription'; text: string; language: string; duration: number; segments: unknown[]; words?: unknown[] } = {
    kind: 'transcription',
    text,
    language: 'english',
    duration: seconds,
    segments,
  };
  if (task.timestampGranularities?.includes('word')) result.words = timed;
  // No usage part: the sim bills per second, and the gateway counts the prompt's tokens itself.
  return [{ type: 'task-result', result }, DONE];
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
