import type { UrlCitation } from '../../canonical/finish-reason.ts';
import type { SearchResult } from './search-backend.ts';

// The answer's `annotations` (OpenAI's and OpenRouter's `url_citation`): one per search
// result given to the model, located where the answer first cites it — the markdown link
// `[name](url)` the search prompt asks for, else the bare URL — as UTF-16 offsets into the
// message's text; both 0 when the answer does not cite it inline.

const SNIPPET_CHARS = 500;

export function urlCitations(text: string, results: readonly SearchResult[]): UrlCitation[] {
  return results.map((r) => {
    const [start, end] = locate(text, r.url);
    return {
      type: 'url_citation',
      url_citation: { url: r.url, title: r.title, content: r.content.slice(0, SNIPPET_CHARS), start_index: start, end_index: end },
    };
  });
}

function locate(text: string, url: string): [number, number] {
  if (text.length === 0) return [0, 0];
  const link = text.indexOf(`](${url})`);
  if (link >= 0) {
    const open = text.lastIndexOf('[', link);
    if (open >= 0) return [open, link + url.length + 3];
  }
  const bare = text.indexOf(url);
  return bare >= 0 ? [bare, bare + url.length] : [0, 0];
}
