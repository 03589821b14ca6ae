import { randomFillSync } from 'node:crypto';

// Ids draw 10 random bytes from a pool refilled 4 KiB at a time: one system call per
// ~400 requests instead of one each.
const ID_POOL = Buffer.alloc(4096);
let idPoolOffset = ID_POOL.length;

/** A new generation id, `gen-<unix seconds>-<10 random bytes, base64url>`. */
export function newGenerationId(now: number): string {
  if (idPoolOffset + 10 > ID_POOL.length) {
    randomFillSync(ID_POOL);
    idPoolOffset = 0;
  }
  const id = ID_POOL.toString('base64url', idPoolOffset, idPoolOffset + 10);
  idPoolOffset += 10;
  return `gen-${Math.floor(now / 1000)}-${id}`;
}
