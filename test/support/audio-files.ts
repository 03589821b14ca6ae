// Small real audio files built byte by byte, for the duration reader's tests and uploads in
// e2e tests: each is a well-formed container (headers, sizes, Ogg checksums) around frames
// or samples whose contents do not matter to a duration.

export function wavBytes(ms: number, opts: { sampleRate?: number; channels?: number; bits?: number; extraChunk?: boolean } = {}): Buffer {
  const rate = opts.sampleRate ?? 16000;
  const channels = opts.channels ?? 1;
  const bits = opts.bits ?? 16;
  const blockAlign = (channels * bits) / 8;
  const data = Buffer.alloc(Math.round((rate * ms) / 1000) * blockAlign);
  for (let i = 0; i < data.length; i += 2) data.writeInt16LE(Math.round(8000 * Math.sin(i / 10)), i);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * blockAlign, 16);
  fmt.writeUInt16LE(blockAlign, 20);
  fmt.writeUInt16LE(bits, 22);
  // An odd-sized chunk before the data, padded as RIFF requires.
  const extra = opts.extraChunk ? Buffer.concat([chunkHeader('junk', 3), Buffer.from([1, 2, 3, 0])]) : Buffer.alloc(0);
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), fmt, extra, chunkHeader('data', data.length), data]);
  return Buffer.concat([chunkHeader('RIFF', body.length), body]);
}

function chunkHeader(id: string, size: number): Buffer {
  const b = Buffer.alloc(8);
  b.write(id, 0, 'latin1');
  b.writeUInt32LE(size, 4);
  return b;
}

/** An ID3v2.4 tag of `size` bytes of body. */
export function id3Tag(size: number): Buffer {
  const b = Buffer.alloc(10 + size);
  b.write('ID3', 0, 'latin1');
  b[3] = 4;
  b[6] = (size >> 21) & 0x7f;
  b[7] = (size >> 14) & 0x7f;
  b[8] = (size >> 7) & 0x7f;
  b[9] = size & 0x7f;
  return b;
}

/**
 * MPEG-1 Layer III at 128 kbit/s, 44.1 kHz, stereo (417-byte frames of 1,152 samples), or
 * MPEG-2 Layer III at 64 kbit/s, 24 kHz, mono (192-byte frames of 576 samples).
 */
export function mp3Bytes(
  frames: number,
  opts: { mpeg2?: boolean; header?: 'xing' | 'vbri'; id3?: boolean; trailer?: boolean } = {},
): Buffer {
  const head = opts.mpeg2 ? [0xff, 0xf3, 0x84, 0xc0] : [0xff, 0xfb, 0x90, 0x00];
  const length = opts.mpeg2 ? 192 : 417;
  const frame = (): Buffer => {
    const f = Buffer.alloc(length, 0x55);
    Buffer.from(head).copy(f, 0);
    return f;
  };
  const parts: Buffer[] = [];
  if (opts.id3) parts.push(id3Tag(300));
  if (opts.header !== undefined) {
    const first = frame();
    first.fill(0, 4);
    if (opts.header === 'xing') {
      const at = 4 + (opts.mpeg2 ? 9 : 32);
      first.write('Xing', at, 'latin1');
      first.writeUInt32BE(1, at + 4);
      first.writeUInt32BE(frames, at + 8);
    } else {
      const at = 4 + 32;
      first.write('VBRI', at, 'latin1');
      first.writeUInt16BE(1, at + 4);
      first.writeUInt32BE(frames, at + 14);
    }
    parts.push(first);
  }
  for (let i = 0; i < frames; i++) parts.push(frame());
  if (opts.trailer) parts.push(Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.alloc(125)]));
  return Buffer.concat(parts);
}

export function flacBytes(samples: number, sampleRate = 44100): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  const packed = (BigInt(sampleRate) << 44n) | (1n << 41n) | (15n << 36n) | BigInt(samples);
  info.writeBigUInt64BE(packed, 10);
  const header = Buffer.from([0x80, 0, 0, 34]);
  // A frame's worth of bytes after the metadata (a duration never reads them).
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), header, info, Buffer.from([0xff, 0xf8, 0x69, 0x08]), Buffer.alloc(64)]);
}

const OGG_CRC = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggPage(packet: Buffer, granule: bigint, seq: number, flags: number, serial = 0x1234): Buffer {
  const segments: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    segments.push(255);
    left -= 255;
  }
  segments.push(left);
  const head = Buffer.alloc(27 + segments.length);
  head.write('OggS', 0, 'latin1');
  head[5] = flags;
  head.writeBigInt64LE(granule, 6);
  head.writeUInt32LE(serial, 14);
  head.writeUInt32LE(seq, 18);
  head[26] = segments.length;
  segments.forEach((s, i) => (head[27 + i] = s));
  const page = Buffer.concat([head, packet]);
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  page.writeUInt32LE(crc, 22);
  return page;
}

/** Ogg Opus (48 kHz granules, a 312-sample pre-skip) or Ogg Vorbis at `rate`, lasting `ms`. */
export function oggBytes(ms: number, codec: 'opus' | 'vorbis' = 'opus', opts: { rate?: number; truncated?: boolean } = {}): Buffer {
  const pages: Buffer[] = [];
  let total: bigint;
  if (codec === 'opus') {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'latin1');
    head[8] = 1;
    head[9] = 1;
    head.writeUInt16LE(312, 10);
    head.writeUInt32LE(48000, 12);
    pages.push(oggPage(head, 0n, 0, 0x02));
    pages.push(oggPage(Buffer.from('OpusTags\0\0\0\0\0\0\0\0', 'latin1'), 0n, 1, 0));
    total = 312n + BigInt(Math.round(48 * ms));
  } else {
    const rate = opts.rate ?? 44100;
    const head = Buffer.alloc(30);
    head[0] = 1;
    head.write('vorbis', 1, 'latin1');
    head[11] = 2;
    head.writeUInt32LE(rate, 12);
    head[29] = 1;
    pages.push(oggPage(head, 0n, 0, 0x02));
    pages.push(oggPage(Buffer.concat([Buffer.from([3]), Buffer.from('vorbis', 'latin1'), Buffer.alloc(8)]), 0n, 1, 0));
    total = BigInt(Math.round((rate * ms) / 1000));
  }
  if (opts.truncated) return Buffer.concat(pages);
  // Audio pages (contents do not matter), the middle one with no packet ending on it (−1).
  pages.push(oggPage(Buffer.alloc(600, 7), total / 2n, 2, 0));
  pages.push(oggPage(Buffer.alloc(300, 7), -1n, 3, 0));
  pages.push(oggPage(Buffer.alloc(400, 7), total, 4, 0x04));
  return Buffer.concat(pages);
}

function box(type: string, ...children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

/** A sound track whose sample table has `samples` samples of `delta` units at `timescale`. */
function soundTrak(t: { timescale: number; samples: number; delta: number }): Buffer {
  const mdhd = Buffer.alloc(24);
  mdhd.writeUInt32BE(t.timescale, 12);
  mdhd.writeUInt32BE(t.samples * t.delta, 16);
  const hdlr = Buffer.alloc(24);
  hdlr.write('soun', 8, 'latin1');
  const stts = Buffer.alloc(16);
  stts.writeUInt32BE(1, 4);
  stts.writeUInt32BE(t.samples, 8);
  stts.writeUInt32BE(t.delta, 12);
  const stsz = Buffer.alloc(12);
  stsz.writeUInt32BE(100, 4);
  stsz.writeUInt32BE(t.samples, 8);
  return box('trak', box('mdia', box('mdhd', mdhd), box('hdlr', hdlr), box('minf', box('stbl', box('stts', stts), box('stsz', stsz)))));
}

/** An M4A: ftyp, moov/mvhd (version 0 or 1; or a fragmented file's mvex/mehd), mdat. */
export function mp4Bytes(
  ms: number,
  opts: {
    version?: 0 | 1;
    fragmented?: boolean;
    noMoov?: boolean;
    mdatFirst?: boolean;
    soundTrack?: { timescale: number; samples: number; delta: number };
  } = {},
): Buffer {
  const timescale = 44100;
  const duration = BigInt(Math.round((timescale * ms) / 1000));
  const ftyp = box('ftyp', Buffer.from('M4A \0\0\0\0M4A isom', 'latin1'));
  const v1 = opts.version === 1;
  const mvhd = Buffer.alloc(v1 ? 112 : 100);
  mvhd[0] = v1 ? 1 : 0;
  if (v1) {
    mvhd.writeUInt32BE(timescale, 20);
    mvhd.writeBigUInt64BE(opts.fragmented ? 0n : duration, 24);
  } else {
    mvhd.writeUInt32BE(timescale, 12);
    mvhd.writeUInt32BE(opts.fragmented ? 0 : Number(duration), 16);
  }
  const moovChildren = [box('mvhd', mvhd), opts.soundTrack === undefined ? box('trak', Buffer.alloc(32)) : soundTrak(opts.soundTrack)];
  if (opts.fragmented) {
    const mehd = Buffer.alloc(8);
    mehd.writeUInt32BE(Number(duration), 4);
    moovChildren.push(box('mvex', box('mehd', mehd)));
  }
  const mdat = box('mdat', Buffer.alloc(256, 9));
  if (opts.noMoov) return Buffer.concat([ftyp, mdat]);
  const moov = box('moov', ...moovChildren);
  return opts.mdatFirst ? Buffer.concat([ftyp, mdat, moov]) : Buffer.concat([ftyp, moov, mdat]);
}

function ebmlSize(n: number): Buffer {
  // 8-byte sizes throughout: simple and valid.
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n) | (1n << 56n));
  return b;
}

function ebml(id: number, body: Buffer): Buffer {
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'), 'hex');
  return Buffer.concat([idBytes, ebmlSize(body.length), body]);
}

const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

function uint(n: number, bytes = 4): Buffer {
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(n, 0, bytes);
  return b;
}

/**
 * A WebM: with Info's Duration (a file written whole), or as a browser's MediaRecorder
 * writes it (unknown Segment and Cluster sizes, no Duration; 20 ms Opus blocks in clusters).
 */
export function webmBytes(ms: number, opts: { live?: boolean; claimMs?: number } = {}): Buffer {
  const header = ebml(0x1a45dfa3, Buffer.concat([ebml(0x4286, uint(1, 1)), ebml(0x4282, Buffer.from('webm', 'latin1'))]));
  const scale = ebml(0x2ad7b1, uint(1_000_000, 3));
  if (!opts.live) {
    const duration = Buffer.alloc(8);
    duration.writeDoubleBE(ms);
    const info = ebml(0x1549a966, Buffer.concat([scale, ebml(0x4489, duration)]));
    return Buffer.concat([header, ebml(0x18538067, Buffer.concat([info, ebml(0x1654ae6b, Buffer.alloc(20))]))]);
  }
  // A live file's blocks, with a Duration that may say otherwise (claimMs).
  const claim = Buffer.alloc(8);
  claim.writeDoubleBE(opts.claimMs ?? 0);
  const info = ebml(
    0x1549a966,
    Buffer.concat([scale, ebml(0x4d80, Buffer.from('Chrome', 'latin1')), ...(opts.claimMs === undefined ? [] : [ebml(0x4489, claim)])]),
  );
  const clusters: Buffer[] = [];
  // Blocks every 20 ms, the last one starting at ms − 20: clusters of 1 s.
  for (let clusterStart = 0; clusterStart < ms; clusterStart += 1000) {
    const blocks: Buffer[] = [ebml(0xe7, uint(clusterStart, 4))];
    for (let t = clusterStart; t < Math.min(ms, clusterStart + 1000); t += 20) {
      const block = Buffer.alloc(4 + 10, 3);
      block[0] = 0x81;
      block.writeInt16BE(t - clusterStart, 1);
      block[3] = 0x80;
      blocks.push(ebml(0xa3, block));
    }
    clusters.push(Buffer.concat([Buffer.from([0x1f, 0x43, 0xb6, 0x75]), UNKNOWN_SIZE, ...blocks]));
  }
  return Buffer.concat([
    header,
    Buffer.from([0x18, 0x53, 0x80, 0x67]),
    UNKNOWN_SIZE,
    info,
    ebml(0x1654ae6b, Buffer.alloc(20)),
    ...clusters,
  ]);
}
