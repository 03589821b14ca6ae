// WebM / Matroska (EBML): the Segment's Info holds Duration (in TimecodeScale units), and the
// clusters are walked too: the duration is the last block's time plus one block step (the
// codec's frame), or Info's Duration when that is longer. A live recording (a browser's
// MediaRecorder) writes no Duration; a file whose Duration is short of its blocks is not
// cheap. The walk is bounded by the element count.

const EBML = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const CLUSTER = 0x1f43b675;
const CLUSTER_TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;

const MAX_ELEMENTS = 1_000_000;

export function isWebm(b: Buffer): boolean {
  return b.length >= 4 && b.readUInt32BE(0) === EBML;
}

interface Vint {
  value: number;
  length: number;
  /** Every value bit set: the size is unknown (a live stream). */
  unknown: boolean;
}

function vint(b: Buffer, at: number, keepMarker: boolean): Vint | null {
  if (at >= b.length) return null;
  const first = b[at]!;
  if (first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (at + length > b.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!;
    if (b[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

interface Element {
  id: number;
  body: number;
  /** The body's end, or -1 when the size is unknown. */
  end: number;
}

function element(b: Buffer, at: number): Element | null {
  const id = vint(b, at, true);
  if (id === null || id.length > 4) return null;
  const size = vint(b, at + id.length, false);
  if (size === null) return null;
  const body = at + id.length + size.length;
  return { id: id.value, body, end: size.unknown ? -1 : body + size.value };
}

export function webmDurationMs(b: Buffer): number | null {
  const header = element(b, 0);
  if (header === null || header.id !== EBML || header.end < 0) return null;
  const segment = element(b, header.end);
  if (segment === null || segment.id !== SEGMENT) return null;
  const end = segment.end < 0 ? b.length : Math.min(b.length, segment.end);
  let scale = 1_000_000;
  let clusterTime = 0;
  let lastBlock = -1;
  let blockStep = 0;
  let infoMs = 0;
  let at = segment.body;
  for (let i = 0; i < MAX_ELEMENTS && at < end; i++) {
    const el = element(b, at);
    if (el === null) break;
    // Clusters and block groups are entered (a cluster of unknown size ends where the next begins).
    if (el.id === CLUSTER || el.id === BLOCK_GROUP) {
      at = el.body;
      continue;
    }
    if (el.end < 0 || el.end > b.length) break;
    if (el.id === INFO) {
      const info = readInfo(b, el);
      scale = info.scale;
      if (info.duration !== null) infoMs = Math.round((info.duration * scale) / 1e6);
    } else if (el.id === CLUSTER_TIMECODE) {
      clusterTime = readUint(b, el);
    } else if (el.id === SIMPLE_BLOCK || el.id === BLOCK) {
      const track = vint(b, el.body, false);
      if (track !== null && el.body + track.length + 2 <= el.end) {
        const time = clusterTime + b.readInt16BE(el.body + track.length);
        if (time > lastBlock) {
          if (lastBlock >= 0) blockStep = time - lastBlock;
          lastBlock = time;
        }
      }
    }
    at = el.end;
  }
  // The last block lasts as long as the step before it (a codec's frame).
  const last = lastBlock + blockStep;
  const blocksMs = last <= 0 ? 0 : Math.round((last * scale) / 1e6);
  const ms = Math.max(blocksMs, infoMs);
  return ms <= 0 ? null : ms;
}

function readInfo(b: Buffer, info: Element): { scale: number; duration: number | null } {
  let scale = 1_000_000;
  let duration: number | null = null;
  let at = info.body;
  for (let i = 0; i < 64 && at < info.end; i++) {
    const el = element(b, at);
    if (el === null || el.end < 0 || el.end > info.end) break;
    if (el.id === TIMECODE_SCALE) scale = readUint(b, el) || 1_000_000;
    else if (el.id === DURATION) {
      const size = el.end - el.body;
      const d = size === 8 ? b.readDoubleBE(el.body) : size === 4 ? b.readFloatBE(el.body) : NaN;
      if (Number.isFinite(d) && d > 0) duration = d;
    }
    at = el.end;
  }
  return { scale, duration };
}

function readUint(b: Buffer, el: Element): number {
  let value = 0;
  for (let at = el.body; at < el.end && at < el.body + 8; at++) value = value * 256 + b[at]!;
  return value;
}
