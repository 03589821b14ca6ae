import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

// The sim's images: small real PNGs (signature, IHDR, IDAT, IEND, each with its CRC-32),
// 8-bit RGB, drawn deterministically from the prompt so the same prompt always gives the
// same bytes. Made here with node:zlib alone, no image library.

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Side of a sim image in pixels, whatever size was asked for (the answer still names the size asked). */
export const SIM_IMAGE_SIDE = 32;

/** A PNG of `side`×`side` pixels: a two-colour gradient whose colours come from SHA-256 of `seed`. */
export function simPng(seed: string, side = SIM_IMAGE_SIDE): Buffer {
  const h = createHash('sha256').update(seed).digest();
  const from = [h[0]!, h[1]!, h[2]!];
  const to = [h[3]!, h[4]!, h[5]!];
  const rowBytes = 1 + side * 3;
  const raw = Buffer.alloc(rowBytes * side);
  for (let y = 0; y < side; y++) {
    raw[y * rowBytes] = 0; // filter: none
    for (let x = 0; x < side; x++) {
      const t = (x + y) / (2 * (side - 1));
      for (let c = 0; c < 3; c++) raw[y * rowBytes + 1 + x * 3 + c] = Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
