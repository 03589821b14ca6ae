// WAV (RIFF/WAVE): the audio bytes over the byte rate, neither taken on one header's word
// alone, since a decoder does not. The audio is every `data` chunk's bytes: a decoder reads on
// into a second `data` chunk after a short first one; a size of 0 or larger than the file
// (0xFFFFFFFF from a recorder that never went back to write it) counts what is there; metadata
// chunks after the audio (LIST, id3, cover art) are not audio, but bytes after it that are
// not a chunk fitting the file are (a lenient decoder plays on). A file with more chunks than
// are walked counts the rest of the file as audio. For PCM the rate a decoder plays at is the
// sample rate times the block size, whatever `byteRate` claims (the lower of the two is taken).

/** At most this many chunks are walked. */
const MAX_CHUNKS = 256;

/** Format tags whose samples a decoder plays at sampleRate × blockAlign: PCM, IEEE float, A-law, µ-law, extensible. */
const PCM_TAGS: ReadonlySet<number> = new Set([1, 3, 6, 7, 0xfffe]);

export function wavDurationMs(b: Buffer): number | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  let byteRate = 0;
  let audio = 0;
  let sawData = false;
  let i = 0;
  for (; i < MAX_CHUNKS && at + 8 <= b.length; i++) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) return null;
      byteRate = b.readUInt32LE(body + 8);
      const played = b.readUInt32LE(body + 4) * b.readUInt16LE(body + 12);
      if (PCM_TAGS.has(b.readUInt16LE(body)) && played > 0 && played < byteRate) byteRate = played;
    } else if (id === 'data') {
      sawData = true;
      if (size === 0 || size === 0xffffffff || body + size >= b.length) {
        audio += b.length - body;
        at = b.length;
        break;
      }
      audio += size;
    } else if (sawData && body + size > b.length) {
      // Not a chunk that fits the file: bytes a lenient decoder may play on as audio.
      audio += b.length - at;
      at = b.length;
      break;
    }
    // Chunks are padded to an even size.
    at = body + size + (size & 1);
  }
  // Walked as far as the bound allows: what is left may be audio.
  if (i === MAX_CHUNKS && at < b.length) {
    audio += b.length - at;
    sawData = true;
  }
  if (!sawData || byteRate === 0) return null;
  return Math.round((audio * 1000) / byteRate);
}
