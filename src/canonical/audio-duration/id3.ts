/** Where the audio starts after an ID3v2 tag (MP3 and some FLAC files carry one first); 0 without one. */
export function skipId3v2(b: Buffer): number {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return 0;
  // The size is "synchsafe": four 7-bit bytes.
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
  const footer = (b[5]! & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}
