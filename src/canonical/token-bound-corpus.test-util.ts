import type { CanonicalRequest, UserContentPart } from './request.ts';
import { seededRandom } from './seeded-random.test-util.ts';

// Prompts in the scripts and shapes that tokenize worst, for the hold-bound tests and the
// charge/hold ratio bench (bench/hold-bound-ratio.ts). Every draw is seeded.

function fromRange(rand: () => number, n: number, lo: number, hi: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
  return s;
}

function pick(rand: () => number, n: number, items: readonly string[], sep = ''): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor(rand() * items.length)]!);
  return out.join(sep);
}

const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇯🇵', '🧑🏿‍🚀', '❤️', '🤖', '🫠', '✈️'];
const CODE = `export async function fetchAll<T>(urls: readonly string[], opts?: { retries?: number }): Promise<T[]> {
  const out: T[] = [];
  for (const [i, url] of urls.entries()) {
    const res = await fetch(url, { headers: { 'x-request-id': \`req-\${i}\` } });
    if (!res.ok) throw new Error(\`\${res.status} \${res.statusText} at \${url}\`);
    out.push((await res.json()) as T);
  }
  return out; // ${'#'.repeat(3)}
}
`;

function text(t: string): UserContentPart {
  return { type: 'text', text: t };
}

function request(content: UserContentPart[]): CanonicalRequest {
  return { models: [], messages: [{ role: 'user', content }], sampling: {}, stream: false, extra: {}, maxOutputTokens: 1 };
}

/** A base64 PDF of `pages` pages, each with a line of text. */
function pdf(pages: number): string {
  const objs = [`1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj`, `2 0 obj << /Type /Pages /Count ${pages} >> endobj`];
  for (let i = 0; i < pages; i++) objs.push(`${3 + i} 0 obj << /Type /Page /Parent 2 0 R >> endobj BT (Page ${i} text) Tj ET`);
  return Buffer.from(`%PDF-1.4\n${objs.join('\n')}\n%%EOF`, 'latin1').toString('base64');
}

export interface CorpusEntry {
  name: string;
  req: CanonicalRequest;
  /** Images and PDF pages in the prompt: each charged as a vendor's largest image count. */
  images: number;
}

export function tokenBoundCorpus(): CorpusEntry[] {
  const r = seededRandom(20_251_124);
  const json = JSON.stringify(
    Array.from({ length: 60 }, (_, i) => ({ id: i, name: `item-${Math.floor(r() * 1e6)}`, tags: ['a', 'b'], ok: r() < 0.5, score: r() })),
  );
  const base64 = Buffer.from(Array.from({ length: 6_000 }, () => Math.floor(r() * 256))).toString('base64');
  const entries: Array<[string, string]> = [
    ['CJK ideographs', fromRange(r, 4_000, 0x4e00, 0x9fff)],
    ['CJK extension B (astral)', fromRange(r, 2_000, 0x20000, 0x2a6df)],
    ['Hangul syllables', fromRange(r, 4_000, 0xac00, 0xd7a3)],
    ['Hangul jamo', 'ᄀ'.repeat(12_000)],
    ['Hangul jamo, mixed', fromRange(r, 6_000, 0x1100, 0x11ff)],
    ['emoji', pick(r, 1_500, EMOJI)],
    ['Arabic', pick(r, 800, ['مرحبا', 'بالعالم', 'كيف', 'حالك', 'اليوم', 'شكرا', 'جزيلا'], ' ')],
    ['Arabic letters, unspaced', fromRange(r, 5_000, 0x0621, 0x064a)],
    ['Devanagari', fromRange(r, 5_000, 0x0900, 0x097f)],
    ['Thai', fromRange(r, 5_000, 0x0e01, 0x0e5b)],
    ['Cyrillic', pick(r, 800, ['Привет', 'мир', 'как', 'дела', 'хорошо', 'спасибо'], ' ')],
    ['code', CODE.repeat(20)],
    ['JSON', json],
    ['base64', base64],
    ['punctuation runs', pick(r, 8_000, ['!', '?', '.', ',', ';', ':', '-', '"', "'", '(', ')', '{', '}', '[', ']', '|', '~', '^', '`'])],
    ['digits', fromRange(r, 8_000, 0x30, 0x39)],
    ['combining marks', pick(r, 3_000, ['a\u0301\u0302\u0303', 'e\u0308\u0323', 'o\u030a\u0316\u0317'])],
    ['mixed scripts', pick(r, 1_500, ['hello', '世界', '안녕', 'мир', 'مرحبا', 'नमस्ते', '😀', '{"k":1}', '...'], ' ')],
    ['English prose', pick(r, 2_000, ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'and', 'then'], ' ')],
  ];
  const corpus: CorpusEntry[] = entries.map(([name, t]) => ({ name, req: request([text(t)]), images: 0 }));
  corpus.push({
    name: 'images (auto, low)',
    req: request([
      text('Compare.'),
      { type: 'image', url: 'https://example.com/a.png' },
      { type: 'image', url: 'data:image/png;base64,AAAA', detail: 'low' },
    ]),
    images: 2,
  });
  corpus.push({
    name: 'PDF of 12 pages',
    req: request([text('Summarize.'), { type: 'file', data: pdf(12), mediaType: 'application/pdf' }]),
    images: 12,
  });
  corpus.push({
    name: 'text file (CJK)',
    req: request([{ type: 'file', data: Buffer.from(fromRange(r, 3_000, 0x4e00, 0x9fff)).toString('base64'), mediaType: 'text/plain' }]),
    images: 0,
  });
  return corpus;
}

/** Every text of the prompt, as the vendor reads it (text parts and text files). */
export function promptTexts(req: CanonicalRequest): string[] {
  const out: string[] = [];
  for (const m of req.messages) {
    if (m.role !== 'user') continue;
    for (const part of m.content) {
      if (part.type === 'text') out.push(part.text);
      if (part.type === 'file' && part.data !== undefined && part.mediaType !== undefined)
        out.push(Buffer.from(part.data, 'base64').toString(part.mediaType === 'application/pdf' ? 'latin1' : 'utf8'));
    }
  }
  return out;
}
