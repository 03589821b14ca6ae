import { assertNever } from '../assert-never.ts';
import { flacDurationMs, isFlac } from './flac-duration.ts';
import { isMp3, mp3DurationMs } from './mp3-duration.ts';
import { isFragmentedMp4, isMp4, mp4DurationMs } from './mp4-duration.ts';
import { isOgg, isOggFlac, oggDurationMs } from './ogg-duration.ts';
import { wavDurationMs } from './wav-duration.ts';
import { isWebm, webmDurationMs } from './webm-duration.ts';

// An uploaded audio file's duration, read from its own headers before any upstream call:
// it bounds the hold of a transcription priced per second (docs/audio.md). The container is
// recognized by its bytes, never by the file name or the content type a client claims. Pure
// and bounded: every walk stops after a fixed number of chunks, boxes, pages or elements.

export type AudioContainer = 'wav' | 'mp3' | 'flac' | 'ogg' | 'mp4' | 'webm';

/** The containers whose duration is read (OpenAI's accepted uploads: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm). */
export const AUDIO_CONTAINERS: readonly AudioContainer[] = ['wav', 'mp3', 'flac', 'ogg', 'mp4', 'webm'];

export interface AudioDuration {
  container: AudioContainer | null;
  /** Milliseconds, or null when the container is unknown or its header does not say. */
  durationMs: number | null;
}

export function sniffAudioContainer(b: Buffer): AudioContainer | null {
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (isFlac(b)) return 'flac';
  if (isOgg(b)) return 'ogg';
  if (isMp4(b)) return 'mp4';
  if (isWebm(b)) return 'webm';
  if (isMp3(b)) return 'mp3';
  return null;
}

/**
 * The densest audio each container is taken to hold, in bytes a second, where the duration
 * is a header's word that a decoder does not follow (an Ogg page's granule, FLAC's
 * STREAMINFO, a fragmented MP4's `mehd`): such a file is held and charged for at least its
 * size over this rate, so a short header on long audio is not cheap. Lossy audio stays below
 * 64,000 (Opus tops out at 510 kbit/s, AAC at 320 in practice); lossless FLAC at 96 kHz,
 * 24-bit stereo below 400,000. WAV and MP3 are measured from their samples and frames, a
 * plain MP4 from its sound tracks' sample tables, WebM from its blocks' times: a video's
 * bytes never count as seconds of audio.
 */
export const MAX_BYTES_PER_SECOND: Readonly<Record<'flac' | 'ogg' | 'mp4', number>> = { flac: 400_000, ogg: 64_000, mp4: 64_000 };

export function readAudioDuration(b: Buffer): AudioDuration {
  const container = sniffAudioContainer(b);
  let durationMs: number | null = null;
  switch (container) {
    case 'wav':
      durationMs = wavDurationMs(b);
      break;
    case 'flac':
      durationMs = flacDurationMs(b);
      break;
    case 'ogg':
      durationMs = oggDurationMs(b);
      break;
    case 'mp4':
      durationMs = mp4DurationMs(b);
      break;
    case 'webm':
      durationMs = webmDurationMs(b);
      break;
    case 'mp3':
      durationMs = mp3DurationMs(b);
      break;
    case null:
      break;
    default:
      assertNever(container);
  }
  if (durationMs !== null && (container === 'flac' || container === 'ogg' || (container === 'mp4' && isFragmentedMp4(b)))) {
    // Ogg carrying FLAC (its first packet "\x7fFLAC") is lossless: FLAC's rate.
    const rate = container === 'ogg' && isOggFlac(b) ? MAX_BYTES_PER_SECOND.flac : MAX_BYTES_PER_SECOND[container];
    durationMs = Math.max(durationMs, Math.round((b.length * 1000) / rate));
  }
  return { container, durationMs: durationMs !== null && durationMs > 0 && Number.isFinite(durationMs) ? durationMs : null };
}
