import type { CanonicalRequest, Message } from '../../canonical/request.ts';
import type { SearchResult } from './search-backend.ts';

// The search results as the model reads them, OpenRouter's way: a system message put just
// before the conversation's last user message, that dates the search, asks the model to
// cite its sources as markdown links named by their domain, and lists the results. Every
// piece is clipped to a number of UTF-8 bytes, so that the admission can hold the prompt
// tokens the results may add before it knows them (a token is at least one byte).

const TITLE_BYTES = 300;
const URL_BYTES = 1_000;
const CONTENT_BYTES = 1_500;
/** `[n] ` + `\nURL: ` + newlines around each result. */
const RESULT_FRAMING_BYTES = 32;
const QUERY_CHARS = 400;

export const DEFAULT_SEARCH_PROMPT =
  'A web search was conducted on {date}. Incorporate the following web search results into your response.\n\n' +
  'IMPORTANT: Cite them using markdown links named using the domain of the source.\nExample: [nytimes.com](https://nytimes.com/some-page).';

/** What to search for: the text of the conversation's last user message (its first 400 characters), or null when it has none. */
export function searchQueryOf(req: CanonicalRequest): string | null {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i]!;
    if (m.role !== 'user') continue;
    let text = '';
    for (const part of m.content) if (part.type === 'text') text += (text === '' ? '' : ' ') + part.text;
    text = text.replace(/\s+/g, ' ').trim();
    return text === '' ? null : text.slice(0, QUERY_CHARS);
  }
  return null;
}

/** The most prompt tokens `results` results and the prompt can add (their UTF-8 bytes). */
export function resultsTokenBound(maxResults: number, searchPrompt: string | undefined): number {
  const prompt = Buffer.byteLength(searchPrompt ?? DEFAULT_SEARCH_PROMPT, 'utf8') + 16;
  return prompt + maxResults * (TITLE_BYTES + URL_BYTES + CONTENT_BYTES + RESULT_FRAMING_BYTES);
}

/** The results kept (http(s) URLs), each clipped to its bounds: what the model reads and the annotations cite. */
export function clipResults(results: readonly SearchResult[], maxResults: number): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of results) {
    if (out.length >= maxResults) break;
    if (!/^https?:\/\//i.test(r.url) || Buffer.byteLength(r.url, 'utf8') > URL_BYTES) continue;
    out.push({ url: r.url, title: clipUtf8(oneLine(r.title), TITLE_BYTES), content: clipUtf8(r.content.trim(), CONTENT_BYTES) });
  }
  return out;
}

/** Puts the results before the last user message (at the end when there is none). */
export function injectResults(
  req: CanonicalRequest,
  results: readonly SearchResult[],
  searchPrompt: string | undefined,
  now: number,
): void {
  const date = new Date(now).toISOString().slice(0, 10);
  let text = (searchPrompt ?? DEFAULT_SEARCH_PROMPT).replaceAll('{date}', date);
  results.forEach((r, i) => {
    text += `\n\n[${i + 1}] ${r.title}\nURL: ${r.url}\n${r.content}`;
  });
  const message: Message = { role: 'system', content: [{ type: 'text', text }] };
  let at = req.messages.length;
  for (let i = req.messages.length - 1; i >= 0; i--) {
    if (req.messages[i]!.role === 'user') {
      at = i;
      break;
    }
  }
  req.messages.splice(at, 0, message);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, at a character boundary. */
export function clipUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + n > maxBytes) break;
    bytes += n;
    i += ch.length;
  }
  return text.slice(0, i);
}
