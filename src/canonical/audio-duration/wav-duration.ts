// WAV (RIFF/WAVE): the `fmt ` chunk's byte rate and the `data` chunk's size. A `data` size
// larger than what the file holds (a recorder that never went back to write it, 0xFFFFFFFF)
// counts only the bytes present.

/** At most this many chunks are walked before the data chunk. */
const MAX_CHUNKS = 256;

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
    } else if (id === 'data') {
      if (byteRate === 0) return null;
      const bytes = Math.min(size, b.length - body);
      return Math.round((bytes * 1000) / byteRate);
    }
    // Chunks are padded to an even size.
    at = body + size + (size & 1);
  }
  return null;
}
