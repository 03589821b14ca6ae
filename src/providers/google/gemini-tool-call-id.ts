import { randomBytes } from 'node:crypto';

// Gemini 3 signs its function calls (`thoughtSignature`) and refuses the next turn unless
// the first call of each step comes back with its signature, verbatim. A client speaking
// another dialect returns only the tool-call id, so the id carries the signature:
//
//   gsig_<n><signature as base64url>_<base><index>    a call that had a signature
//   call_<base><index>                                one that had none
//
// <n> is how many `=` the signature ended with (dropped: not every dialect takes `=` in an
// id), so it comes back exactly as sent. <base> is letters and digits only, so the last
// `_` ends the signature. Stateless: any
// gateway process can read an id another one handed out. Ids get long (a signature is a
// few kilobytes); the openai adapter shortens long ids before they reach an OpenAI server.

const SIGNED = 'gsig_';
const PLAIN = 'call_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Google's documented stand-in for a call that has no signature (history written by
 * another model, or an id from elsewhere): it skips the check instead of failing the turn.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Bases have this length, so `<base><index>` can never read as another base and index. */
const BASE_LENGTH = 16;

/** A base for this answer's call ids: from its response id when it has one, else random. */
export function toolCallIdBase(responseId: unknown): string {
  if (typeof responseId === 'string') {
    const clean = responseId.replace(/[^A-Za-z0-9]/g, '');
    if (clean.length >= BASE_LENGTH) return clean.slice(0, BASE_LENGTH);
    if (clean.length > 0) return clean.padEnd(BASE_LENGTH, '0');
  }
  return randomBytes(BASE_LENGTH / 2).toString('hex');
}

export function geminiToolCallId(base: string, index: number, signature: string | undefined): string {
  if (signature !== undefined && BASE64.test(signature)) return `${SIGNED}${toBase64Url(signature)}_${base}${index}`;
  return `${PLAIN}${base}${index}`;
}

/** The signature an id carries, exactly as Gemini sent it, or undefined. */
export function signatureFromToolCallId(id: string): string | undefined {
  if (!id.startsWith(SIGNED)) return undefined;
  const end = id.lastIndexOf('_');
  if (end <= SIGNED.length + 1) return undefined;
  const signature = fromBase64Url(id.slice(SIGNED.length, end));
  return signature.length > 0 ? signature : undefined;
}

function toBase64Url(b64: string): string {
  let end = b64.length;
  while (end > 0 && b64.charCodeAt(end - 1) === 61 /* = */) end--;
  return `${b64.length - end}${b64.slice(0, end).replaceAll('+', '-').replaceAll('/', '_')}`;
}

function fromBase64Url(text: string): string {
  const pad = text.charCodeAt(0) - 48;
  if (pad < 0 || pad > 2) return '';
  return text.slice(1).replaceAll('-', '+').replaceAll('_', '/') + (pad === 0 ? '' : pad === 1 ? '=' : '==');
}
