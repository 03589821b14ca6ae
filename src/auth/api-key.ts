import { hash, randomBytes } from 'node:crypto';

// Keys look like `sk-sy-v1-<43 base64url chars>` (256 random bits). Only their SHA-256
// is stored: with that much entropy a plain hash cannot be reversed or guessed, and it
// is cheap enough to compute on every request.

const PREFIX = 'sk-sy-v1-';
const KEY_SHAPE = /^sk-sy-v1-[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return key.length === PREFIX.length + 43 && KEY_SHAPE.test(key);
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A recognizable, non-secret label: prefix, 3 characters, an ellipsis and the last 3. */
export function labelApiKey(key: string): string {
  return `${key.slice(0, PREFIX.length + 3)}...${key.slice(-3)}`;
}
