// WAV (RIFF/WAVE): the audio bytes over the byte rate. Neither is taken on the header's
// word alone, since a decoder does not: the audio is every byte from the first `data` chunk
// to the end of the file (a decoder reads on into a second `data` chunk after a short first
// one, and a size larger than the file, 0xFFFFFFFF from a recorder that never went back to
// write it, counts what is there), and for PCM the rate a decoder plays at is the sample
// rate times the block size, whatever `byteRate` claims (the lower of the two is taken).

/** At most this many chunks are walked before the data chunk. */
const MAX_CHUNKS = 256;

/** Format tags whose samples a decoder plays at sampleRate × blockAlign: PCM, IEEE float, A-law, µ-law, extensible. */
const PCM_TAGS: ReadonlySet<number> = new Set([1, 3, 6, 7, 0xfffe]);

export function wavDurationMs(b: Buffer): number | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  let byteRate = 0;
  for (let i = 0; i < MAX_CHUNKS && at + 8 <= b.length; i++) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length) return null;
      byteRate = b.readUInt32LE(body + 8);
      const played = b.readUInt32LE(body + 4) * b.readUInt16LE(body + 12);
      if (PCM_TAGS.has(b.readUInt16LE(body)) && played > 0 && played < byteRate) byteRate = played;
    } else if (id === 'data') {
      if (byteRate === 0) return null;
      return Math.round(((b.length - body) * 1000) / byteRate);
    }
    // Chunks are padded to an even size.
    at = body + size + (size & 1);
  }
  return null;
}
