import { skipId3v2 } from './id3.ts';

// MPEG audio (MP3, and layers I/II: `.mp3`, `.mpeg`, `.mpga`): the frame count of its
// Xing/Info or VBRI header when the encoder wrote one, and a walk over every frame's header
// (a constant bound: the file is at most the upload limit); the longer of the two. A header
// may say fewer frames than the file holds, and a decoder skips bytes that are not a frame
// and plays on (resyncs), so the walk does too: a short header or junk between frames never
// makes a long file cheap.

/**
 * Sync bytes tried between frames before a file is called unmeasurable (refused): an honest
 * file has a few (a trailing tag); a file of 0xFF bytes would otherwise cost a probe a byte.
 */
const MAX_RESYNC_PROBES = 100_000;

/** The first frame must start within this many bytes of the tag's end. */
const SYNC_WINDOW = 64 * 1024;

// Kilobits a second by bitrate index, for MPEG-1 layers I, II, III then MPEG-2/2.5 layers I, II, III.
const BITRATES: readonly (readonly number[])[] = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

const SAMPLE_RATES: Record<number, readonly number[]> = { 1: [44100, 48000, 32000], 2: [22050, 24000, 16000], 25: [11025, 12000, 8000] };

export interface FrameHeader {
  /** 1, 2 or 25 (MPEG 2.5). */
  version: 1 | 2 | 25;
  layer: 1 | 2 | 3;
  sampleRate: number;
  samples: number;
  length: number;
  mono: boolean;
}

/** The frame header at `at`, or null when the bytes there are not one. */
export function frameHeader(b: Buffer, at: number): FrameHeader | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  const versionBits = (b[at + 1]! >> 3) & 3;
  const layerBits = (b[at + 1]! >> 1) & 3;
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 25;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrate = BITRATES[(version === 1 ? 0 : 3) + layer - 1]![bitrateIndex]! * 1000;
  const sampleRate = SAMPLE_RATES[version]![rateIndex]!;
  const padding = (b[at + 2]! >> 1) & 1;
  const mono = b[at + 3]! >> 6 === 3;
  let samples: number;
  let length: number;
  if (layer === 1) {
    samples = 384;
    length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  } else {
    samples = layer === 3 && version !== 1 ? 576 : 1152;
    length = Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  }
  return { version, layer, sampleRate, samples, length, mono };
}

/** The first frame: a header followed by another header right after it (one alone may be a false sync). */
function firstFrame(b: Buffer): number {
  const start = skipId3v2(b);
  const end = Math.min(b.length - 4, start + SYNC_WINDOW);
  for (let at = start; at < end; at++) {
    if (b[at] !== 0xff) continue;
    const h = frameHeader(b, at);
    if (h === null) continue;
    const next = at + h.length;
    if (next === b.length || frameHeader(b, next) !== null) return at;
  }
  return -1;
}

export function isMp3(b: Buffer): boolean {
  return firstFrame(b) >= 0;
}

export function mp3DurationMs(b: Buffer): number | null {
  const first = firstFrame(b);
  if (first < 0) return null;
  const h = frameHeader(b, first)!;
  const frames = xingFrames(b, first, h) ?? vbriFrames(b, first);
  if (frames === null || frames === 0) return walkFrames(b, first);
  // The Xing/VBRI frame itself is silent: the walk counts the frames after it.
  const walked = first + h.length + 4 <= b.length ? walkFrames(b, first + h.length) : null;
  return Math.max(Math.round((frames * h.samples * 1000) / h.sampleRate), walked ?? 0);
}

/** The frame count of a Xing/Info header (LAME's, in the first frame's side-info gap). */
function xingFrames(b: Buffer, at: number, h: FrameHeader): number | null {
  const sideInfo = h.version === 1 ? (h.mono ? 17 : 32) : h.mono ? 9 : 17;
  const tag = at + 4 + sideInfo;
  if (tag + 12 > b.length) return null;
  const id = b.toString('latin1', tag, tag + 4);
  if (id !== 'Xing' && id !== 'Info') return null;
  const flags = b.readUInt32BE(tag + 4);
  if ((flags & 1) === 0) return null;
  return b.readUInt32BE(tag + 8);
}

/** The frame count of a VBRI header (Fraunhofer's, 32 bytes after the first frame's header). */
function vbriFrames(b: Buffer, at: number): number | null {
  const tag = at + 4 + 32;
  if (tag + 18 > b.length || b.toString('latin1', tag, tag + 4) !== 'VBRI') return null;
  return b.readUInt32BE(tag + 14);
}

/**
 * Sums every frame's samples to the end of the file. Bytes that are not a frame (a trailing
 * tag, junk) are skipped to the next frame header that another header follows, as a decoder
 * resyncs; `indexOf` finds each candidate sync byte natively, so a 25 MB file is walked in
 * milliseconds.
 */
function walkFrames(b: Buffer, first: number): number | null {
  let ms = 0;
  let at = first;
  let frames = 0;
  const probes = { left: MAX_RESYNC_PROBES };
  while (at >= 0 && at + 4 <= b.length) {
    const h = frameHeader(b, at);
    if (h !== null && at + h.length <= b.length) {
      ms += (h.samples * 1000) / h.sampleRate;
      frames++;
      at += h.length;
      continue;
    }
    // Not a frame here: on to the next sync byte whose header is followed by another.
    at = resync(b, at + 1, probes);
    if (probes.left < 0) return null;
  }
  return frames === 0 ? null : Math.round(ms);
}

/** The next offset from `from` where a frame header is followed by another, or -1 (`probes.left` below 0: gave up). */
function resync(b: Buffer, from: number, probes: { left: number }): number {
  let at = b.indexOf(0xff, from);
  while (at >= 0 && at + 4 <= b.length) {
    if (--probes.left < 0) return -1;
    const h = frameHeader(b, at);
    if (h !== null && h.length > 0 && at + h.length <= b.length && (at + h.length === b.length || frameHeader(b, at + h.length) !== null))
      return at;
    at = b.indexOf(0xff, at + 1);
  }
  return -1;
}
