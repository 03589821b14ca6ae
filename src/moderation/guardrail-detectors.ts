import { RE2JS } from 're2js';

// The built-in detectors of guardrails (guardrails.ts): what each finds in a text, as
// [start, end) spans. Candidates are found by RE2 (linear time, whatever the input) and the
// ones a checksum can refute are dropped (a card number fails Luhn, an IBAN mod-97).

export type DetectorName = 'email' | 'phone' | 'payment_card' | 'iban' | 'credentials';
export const DETECTORS: readonly DetectorName[] = ['email', 'phone', 'payment_card', 'iban', 'credentials'];

export type Span = [start: number, end: number];

const EMAIL = RE2JS.compile('[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}');
// An international or national number: 9 to 15 digits, with the usual separators.
const PHONE = RE2JS.compile('(?:\\+|\\b)\\d(?:[ .()-]{0,2}\\d){8,14}\\b');
const CARD = RE2JS.compile('\\b\\d(?:[ -]?\\d){12,18}\\b');
const IBAN = RE2JS.compile('\\b[A-Z]{2}\\d{2}(?: ?[A-Z0-9]){11,30}\\b');
const CREDENTIALS = RE2JS.compile(
  [
    '-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----[\\s\\S]*?(?:-----END (?:[A-Z]+ )*PRIVATE KEY-----|$)',
    '\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}',
    '\\bsk-(?:ant-|proj-|or-v1-|sy-v1-)?[A-Za-z0-9_-]{20,}',
    '\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b',
    '\\bAIza[0-9A-Za-z_-]{35}',
    '\\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}',
    '\\bxox[abposr]-[A-Za-z0-9-]{10,}',
    '\\bglpat-[A-Za-z0-9_-]{20,}',
  ]
    .map((p) => `(?:${p})`)
    .join('|'),
);

/** Every match of `re` in `text` that `keep` accepts (default: every one). */
export function spansOf(re: RE2JS, text: string, keep?: (match: string) => boolean): Span[] {
  const out: Span[] = [];
  const m = re.matcher(text);
  while (m.find()) {
    const start = m.start();
    const end = m.end();
    if (end === start) continue;
    if (keep === undefined || keep(text.slice(start, end))) out.push([start, end]);
  }
  return out;
}

/**
 * `spansOf`, with RE2's DFA asked first whether the text holds any match (`test()`: ~10×
 * faster than a Matcher's search, the same answer), so a text without one, most of them, is
 * not searched. For the built-in detectors only: each compiled pattern keeps a lazy DFA of
 * up to 8 MB (re2js's budget), which five module-wide patterns can afford; an account's own
 * patterns (up to 64 per account, compiled per stored rule list) keep the Matcher alone, whose
 * memory goes with each search.
 */
export function screenedSpans(re: RE2JS, text: string, keep?: (match: string) => boolean): Span[] {
  return re.test(text) ? spansOf(re, text, keep) : [];
}

export function detect(name: DetectorName, text: string): Span[] {
  switch (name) {
    case 'email':
      return screenedSpans(EMAIL, text);
    case 'phone':
      return screenedSpans(PHONE, text);
    case 'payment_card':
      return screenedSpans(CARD, text, luhn);
    case 'iban':
      return screenedSpans(IBAN, text, ibanValid);
    case 'credentials':
      return screenedSpans(CREDENTIALS, text);
  }
}

/** The Luhn checksum of a card number (digits only counted). */
export function luhn(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as 10..35, the number mod 97 is 1. */
export function ibanValid(candidate: string): boolean {
  const iban = candidate.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = value >= 10 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97;
  }
  return rest === 1;
}
