import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Envelope encryption of accounts' own provider keys (docs/byok.md): each stored secret gets
// a random 256-bit data key; the secret is sealed with it (AES-256-GCM), and the data key is
// sealed with the master key (AES-256-GCM). Both seals are bound to the account and provider
// (GCM's additional data), so a sealed row copied onto another account or provider does not
// open. Rotating the master key re-seals the data keys only (`rewrap`). The master key never
// leaves this module's callers; its id (a SHA-256 prefix) says which key sealed a row.

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class MasterKey {
  readonly id: string;
  private readonly key: Buffer;

  private constructor(key: Buffer) {
    this.key = key;
    this.id = createHash('sha256').update('switchyard byok master key id\0').update(key).digest('hex').slice(0, 16);
  }

  /** 32 bytes as 64 hex digits or base64 (with or without padding); null for anything else. */
  static parse(text: string): MasterKey | null {
    const t = text.trim();
    let bytes: Buffer | null = null;
    if (/^[0-9a-fA-F]{64}$/.test(t)) bytes = Buffer.from(t, 'hex');
    else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes !== null && bytes.length === 32 ? new MasterKey(bytes) : null;
  }

  /** Seals with this key (internal to this module). */
  seal(plain: Buffer, aad: string): string {
    return sealWith(this.key, plain, aad);
  }

  open(sealed: string, aad: string): Buffer {
    return openWith(this.key, sealed, aad);
  }
}

/** What a stored secret is, at rest: the sealed data key and the sealed secret. */
export interface SealedSecret {
  /** The data key, sealed by the master key. */
  wrappedKey: string;
  /** The secret, sealed by the data key. */
  ciphertext: string;
  /** Which master key sealed the data key. */
  masterKeyId: string;
}

export function encryptSecret(master: MasterKey, secret: string, accountId: string, provider: string): SealedSecret {
  const dataKey = randomBytes(32);
  const aad = boundTo(accountId, provider);
  try {
    return {
      wrappedKey: master.seal(dataKey, aad),
      ciphertext: sealWith(dataKey, Buffer.from(secret, 'utf8'), aad),
      masterKeyId: master.id,
    };
  } finally {
    dataKey.fill(0);
  }
}

/** The secret; throws when the master key is not the one that sealed it, or the row was altered. */
export function decryptSecret(master: MasterKey, sealed: SealedSecret, accountId: string, provider: string): string {
  const aad = boundTo(accountId, provider);
  const dataKey = master.open(sealed.wrappedKey, aad);
  try {
    return openWith(dataKey, sealed.ciphertext, aad).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/** The same secret's data key sealed by `next` instead of `previous` (master-key rotation); the secret's own seal is unchanged. */
export function rewrap(previous: MasterKey, next: MasterKey, sealed: SealedSecret, accountId: string, provider: string): SealedSecret {
  const aad = boundTo(accountId, provider);
  const dataKey = previous.open(sealed.wrappedKey, aad);
  try {
    // The secret opens with it: a row whose two seals disagree is found now, not at use.
    openWith(dataKey, sealed.ciphertext, aad);
    return { wrappedKey: next.seal(dataKey, aad), ciphertext: sealed.ciphertext, masterKeyId: next.id };
  } finally {
    dataKey.fill(0);
  }
}

function boundTo(accountId: string, provider: string): string {
  return `switchyard byok\0${accountId}\0${provider}`;
}

function sealWith(key: Buffer, plain: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return `${VERSION}.${iv.toString('base64url')}.${Buffer.concat([body, cipher.getAuthTag()]).toString('base64url')}`;
}

function openWith(key: Buffer, sealed: string, aad: string): Buffer {
  const [version, ivText, bodyText] = sealed.split('.');
  if (version !== VERSION || ivText === undefined || bodyText === undefined) throw new Error('not a sealed secret of this version');
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error('a sealed secret of the wrong size');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
}
