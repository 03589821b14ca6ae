// MP4 / M4A (ISO base media): the `mvhd` box in `moov` holds the movie's timescale and
// duration; a fragmented file (duration 0) states it in `moov/mvex/mehd` instead.

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

export function mp4DurationMs(b: Buffer): number | null {
  const moov = find(b, 0, b.length, 'moov');
  if (moov === null) return null;
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
