import type { SpeechTask } from '../../canonical/task.ts';

/** The content type of each speech format, as OpenAI answers it. */
export const SPEECH_CONTENT_TYPES: Readonly<Record<SpeechTask['responseFormat'], string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
