import { randomBytes } from 'node:crypto';

// Images answered as `response_format: url`: the gateway keeps them in memory for a bounded
// time (`server.image_url_ttl_seconds`, default one hour, as OpenAI keeps its own) and up to
// a byte cap (`server.image_url_max_bytes`: past it the oldest images go first), and serves
// each at `GET /v1/images/files/<id>` to keys of the account that asked for it only. The
// id is 192 random bits. Each gateway process keeps its own (docs/images.md).

export interface StoredImage {
  accountId: string;
  contentType: string;
  data: Buffer;
  expiresAt: number;
}

export class ImageUrlStore {
  private readonly images = new Map<string, StoredImage>();
  private bytes = 0;
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(opts: { ttlMs: number; maxBytes: number; now: () => number }) {
    this.ttlMs = opts.ttlMs;
    this.maxBytes = opts.maxBytes;
    this.now = opts.now;
  }

  /** Keeps the image; returns its id. */
  put(accountId: string, contentType: string, data: Buffer): string {
    this.sweep();
    const id = randomBytes(24).toString('base64url');
    // Larger than the whole store: not kept (its URL answers 404), and nothing else is dropped for it.
    if (data.length > this.maxBytes) return id;
    // Oldest first (a Map keeps insertion order), until the new image fits.
    for (const [old, image] of this.images) {
      if (this.bytes + data.length <= this.maxBytes) break;
      this.drop(old, image);
    }
    this.images.set(id, { accountId, contentType, data, expiresAt: this.now() + this.ttlMs });
    this.bytes += data.length;
    return id;
  }

  /** The image when it exists, has not expired, and belongs to `accountId`; else null (the route answers 404 alike). */
  get(id: string, accountId: string): StoredImage | null {
    const image = this.images.get(id);
    if (image === undefined) return null;
    if (image.expiresAt <= this.now()) {
      this.drop(id, image);
      return null;
    }
    return image.accountId === accountId ? image : null;
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, image] of this.images) if (image.expiresAt <= now) this.drop(id, image);
  }

  private drop(id: string, image: StoredImage): void {
    this.images.delete(id);
    this.bytes -= image.data.length;
  }
}
