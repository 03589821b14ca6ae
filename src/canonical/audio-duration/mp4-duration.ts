// MP4 / M4A (ISO base media): the `mvhd` box in `moov` holds the movie's timescale and
// duration; a fragmented file (duration 0) states it in `moov/mvex/mehd` instead. A decoder
// does not play by mvhd but by each track's sample table: a sound track's `stts` (its
// samples' durations, over its `mdhd` timescale) counts too, and the longer wins, so a short
// mvhd on long audio is not cheap. (A fragmented file's samples live in its fragments: see
// isFragmentedMp4 and read-audio-duration.ts.)

/** The fewest audio frames one MP4 sample decodes to (AAC-LC's frame). */
const MIN_SAMPLE_FRAMES = 1024;

/** At most this many boxes are walked at each level. */
const MAX_BOXES = 512;

export function isMp4(b: Buffer): boolean {
  return b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp';
}

interface Box {
  type: string;
  body: number;
  end: number;
}

function* boxes(b: Buffer, start: number, end: number): Generator<Box> {
  let at = start;
  for (let i = 0; i < MAX_BOXES && at + 8 <= end; i++) {
    let size = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    let body = at + 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(b.readBigUInt64BE(at + 8));
      body = at + 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < body - at) return;
    const boxEnd = Math.min(end, at + size);
    yield { type, body, end: boxEnd };
    at = at + size;
  }
}

function find(b: Buffer, start: number, end: number, type: string): Box | null {
  for (const box of boxes(b, start, end)) if (box.type === type) return box;
  return null;
}

/** True when the file's samples are in movie fragments (moov/mvex): no sample table to sum. */
export function isFragmentedMp4(b: Buffer): boolean {
  const moov = find(b, 0, b.length, 'moov');
  return moov !== null && find(b, moov.body, moov.end, 'mvex') !== null;
}

export function mp4DurationMs(b: Buffer): number | null {
  const moov = find(b, 0, b.length, 'moov');
  if (moov === null) return null;
  const header = movieHeaderMs(b, moov);
  const tracks = soundTracksMs(b, moov);
  if (header === null) return tracks > 0 ? tracks : null;
  return Math.max(header, tracks);
}

/** The longest sound track's sample table: Σ count × delta of its `stts`, over its `mdhd` timescale. */
function soundTracksMs(b: Buffer, moov: Box): number {
  let longest = 0;
  for (const trak of boxes(b, moov.body, moov.end)) {
    if (trak.type !== 'trak') continue;
    const mdia = find(b, trak.body, trak.end, 'mdia');
    if (mdia === null) continue;
    const hdlr = find(b, mdia.body, mdia.end, 'hdlr');
    if (hdlr === null || hdlr.body + 12 > hdlr.end || b.toString('latin1', hdlr.body + 8, hdlr.body + 12) !== 'soun') continue;
    const mdhd = find(b, mdia.body, mdia.end, 'mdhd');
    if (mdhd === null) continue;
    const v1 = b[mdhd.body] === 1;
    if (mdhd.body + (v1 ? 24 : 16) > mdhd.end) continue;
    const timescale = b.readUInt32BE(mdhd.body + (v1 ? 20 : 12));
    const minf = find(b, mdia.body, mdia.end, 'minf');
    const stbl = minf === null ? null : find(b, minf.body, minf.end, 'stbl');
    const stts = stbl === null ? null : find(b, stbl.body, stbl.end, 'stts');
    if (timescale === 0 || stts === null || stts.body + 8 > stts.end) continue;
    // Bounded by the box: at most its size / 8 entries (a 25 MB file: about 3 million).
    const entries = Math.min(b.readUInt32BE(stts.body + 4), Math.floor((stts.end - stts.body - 8) / 8));
    let units = 0;
    let samples = 0;
    for (let i = 0, at = stts.body + 8; i < entries; i++, at += 8) {
      const count = b.readUInt32BE(at);
      samples += count;
      units += count * b.readUInt32BE(at + 4);
    }
    // A decoder decodes every sample (stsz's count) whole, whatever duration stts gives it:
    // at least AAC's 1,024 audio samples each, at the track's rate.
    const stsz = find(b, stbl!.body, stbl!.end, 'stsz');
    if (stsz !== null && stsz.body + 12 <= stsz.end) samples = Math.max(samples, b.readUInt32BE(stsz.body + 8));
    units = Math.max(units, samples * MIN_SAMPLE_FRAMES);
    longest = Math.max(longest, Math.round((units * 1000) / timescale));
  }
  return longest;
}

function movieHeaderMs(b: Buffer, moov: Box): number | null {
  const mvhd = find(b, moov.body, moov.end, 'mvhd');
  if (mvhd === null) return null;
  const v1 = b[mvhd.body] === 1;
  const need = v1 ? 32 : 20;
  if (mvhd.body + need > mvhd.end) return null;
  const timescale = b.readUInt32BE(mvhd.body + (v1 ? 20 : 12));
  let duration = v1 ? Number(b.readBigUInt64BE(mvhd.body + 24)) : b.readUInt32BE(mvhd.body + 16);
  if (timescale === 0) return null;
  if (duration === 0 || duration === 0xffffffff || duration >= Number.MAX_SAFE_INTEGER) {
    duration = fragmentDuration(b, moov) ?? 0;
  }
  if (duration === 0) return null;
  return Math.round((duration * 1000) / timescale);
}

function fragmentDuration(b: Buffer, moov: Box): number | null {
  const mvex = find(b, moov.body, moov.end, 'mvex');
  const mehd = mvex === null ? null : find(b, mvex.body, mvex.end, 'mehd');
  if (mehd === null) return null;
  const v1 = b[mehd.body] === 1;
  if (mehd.body + (v1 ? 12 : 8) > mehd.end) return null;
  return v1 ? Number(b.readBigUInt64BE(mehd.body + 4)) : b.readUInt32BE(mehd.body + 4);
}
