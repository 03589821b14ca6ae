import { randomBytes } from 'node:crypto';
import { OwnerBoundedLru } from '../../shared/owner-bounded-lru.ts';

// Images answered as `response_format: url`: the gateway keeps them in memory for a bounded
// time (`server.image_url_ttl_seconds`, default one hour, as OpenAI keeps its own) and up to
// a byte cap (`server.image_url_max_bytes`), and serves each at `GET /v1/images/files/<id>`
// to keys of the account that asked for it only. The id is 192 random bits. Each gateway
// process keeps its own (docs/images.md).
//
// Like the response cache, the store is shared by every account and each account holds at
// most a share of it (IMAGE_URL_ACCOUNT_SHARE): an account past its share drops its own
// oldest images, never another account's (shared/owner-bounded-lru.ts), so one account
// cannot flush the URLs it did not make. Each image counts IMAGE_ENTRY_OVERHEAD bytes more
// than its own, so that many tiny images cannot hold more memory than the cap says.

/** The part of the store one account may fill. */
export const IMAGE_URL_ACCOUNT_SHARE = 0.25;
/** What keeping one image costs besides its bytes (its id, record and map entries). */
export const IMAGE_ENTRY_OVERHEAD = 1024;

export interface StoredImage {
  accountId: string;
  contentType: string;
  data: Buffer;
}

export class ImageUrlStore {
  private readonly images: OwnerBoundedLru<StoredImage>;
  private readonly ttlMs: number;

  constructor(opts: { ttlMs: number; maxBytes: number; now: () => number }) {
    this.ttlMs = opts.ttlMs;
    this.images = new OwnerBoundedLru<StoredImage>({
      maxTotal: opts.maxBytes,
      maxPerOwner: Math.floor(opts.maxBytes * IMAGE_URL_ACCOUNT_SHARE),
      size: (image) => image.data.length + IMAGE_ENTRY_OVERHEAD,
      now: opts.now,
    });
  }

  /** Keeps the image; returns its id. An image larger than an account's share is not kept (its URL answers 404) and drops nothing. */
  put(accountId: string, contentType: string, data: Buffer): string {
    const id = randomBytes(24).toString('base64url');
    this.images.set(accountId, id, { accountId, contentType, data }, this.ttlMs);
    return id;
  }

  /** The image when it exists, has not expired, and belongs to `accountId`; else null (the route answers 404 alike). */
  get(id: string, accountId: string): StoredImage | null {
    return this.images.get(accountId, id) ?? null;
  }

  /** Bytes held now, each image's overhead included. */
  get size(): number {
    return this.images.totalSize;
  }

  /** Bytes one account holds now. */
  accountSize(accountId: string): number {
    return this.images.ownerSize(accountId);
  }
}
