import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { clipUtf8, injectResults, resultsTokenBound, searchQueryOf, clipResults } from './search-results-message.ts';
import { urlCitations } from './url-citations.ts';
import { mayAskWebSearch, readWebSearchAsk, stripWebSearchFields } from './web-search-ask.ts';

function req(extra: Record<string, unknown>, model = 'a/b', text = 'hello'): CanonicalRequest {
  return { models: [{ model }], messages: [{ role: 'user', content: [{ type: 'text', text }] }], sampling: {}, stream: false, extra };
}

describe('web search asks', () => {
  it('reads each form; a request without one costs a few property reads', () => {
    assert.equal(mayAskWebSearch(req({})), false);
    assert.equal(readWebSearchAsk(req({})), null);
    assert.deepEqual(
      readWebSearchAsk(
        req({ plugins: [{ id: 'file-parser' }, { id: 'web', max_results: 7, search_prompt: 'P {date}', engine: 'native' }] }),
      ),
      {
        engine: 'native',
        field: 'plugins',
        returnCitations: true,
        continueOnError: false,
        maxResults: 7,
        searchPrompt: 'P {date}',
      },
    );
    assert.equal(readWebSearchAsk(req({}, 'a/b:online'))!.field, 'plugins');
    assert.equal(readWebSearchAsk(req({ search_parameters: { mode: 'off' } })), null);
    assert.deepEqual(
      readWebSearchAsk(
        req({
          search_parameters: {
            max_search_results: 2,
            return_citations: false,
            on_error: 'continue',
            to_date: '2026-03-04T00:00:00Z',
            sources: [{ type: 'web', excluded_websites: ['x.com'] }],
          },
        }),
      ),
      {
        engine: 'auto',
        field: 'search_parameters',
        returnCitations: false,
        continueOnError: true,
        maxResults: 2,
        toDate: '2026-03-04',
        excludeDomains: ['x.com'],
      },
    );
    assert.equal(readWebSearchAsk(req({ web_search_options: { search_context_size: 'high' } }))!.maxResults, 10);
    const tool = req({});
    tool.webSearchTool = true;
    assert.equal(readWebSearchAsk(tool)!.engine, 'gateway');
  });

  it('refuses malformed values with the field named', () => {
    for (const [extra, param] of [
      [{ plugins: [{ id: 'web', max_results: 0 }] }, 'plugins[0].max_results'],
      [{ plugins: [{ id: 'web', search_prompt: 3 }] }, 'plugins[0].search_prompt'],
      [{ plugins: [{ id: 'web', on_error: 'retry' }] }, 'plugins[0].on_error'],
      [{ search_parameters: { max_search_results: 1.5 } }, 'search_parameters.max_search_results'],
    ] as const) {
      assert.throws(
        () => readWebSearchAsk(req(extra)),
        (e: unknown) => e instanceof GatewayError && e.param === param,
      );
    }
  });

  it('strips the search fields and keeps the other plugins', () => {
    const r = req({ plugins: [{ id: 'web' }, { id: 'file-parser' }], web_search_options: {}, search_parameters: {}, transforms: [] });
    stripWebSearchFields(r);
    assert.deepEqual(r.extra, { plugins: [{ id: 'file-parser' }], transforms: [] });
  });
});

describe('search results in the prompt', () => {
  it('searches for the last user text and puts the results before it', () => {
    const r = req({}, 'a/b', '  what   is\nnew? ');
    r.messages.unshift({ role: 'system', content: [{ type: 'text', text: 'be brief' }] });
    r.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    assert.equal(searchQueryOf(r), 'what is new?');
    injectResults(r, [{ url: 'https://a.example/x', title: 'A', content: 'alpha' }], 'Results of {date}:', Date.UTC(2026, 0, 2));
    assert.deepEqual(
      r.messages.map((m) => m.role),
      ['system', 'system', 'user', 'assistant'],
    );
    assert.deepEqual(r.messages[1]!.content, [{ type: 'text', text: 'Results of 2026-01-02:\n\n[1] A\nURL: https://a.example/x\nalpha' }]);
  });

  it('clips each piece by UTF-8 bytes, so the hold bounds the tokens the results add', () => {
    assert.equal(clipUtf8('ééé', 5), 'éé');
    assert.equal(clipUtf8('a😀b', 4), 'a');
    const long = { url: 'https://a.example/' + 'p'.repeat(20), title: 'T'.repeat(1000), content: 'é'.repeat(5000) };
    const [clipped] = clipResults([long, { url: 'ftp://no', title: '', content: '' }], 5);
    const bytes = Buffer.byteLength(`[1] ${clipped!.title}\nURL: ${clipped!.url}\n${clipped!.content}\n\n`);
    assert.ok(bytes <= resultsTokenBound(1, ''), `${bytes} bytes within the bound`);
    assert.equal(clipResults([long, { url: 'ftp://no', title: '', content: '' }], 5).length, 1, 'not http(s): skipped');
  });
});

describe('url citations', () => {
  it('locate the markdown link, else the bare URL, else 0/0', () => {
    const text = 'See [a.example](https://a.example/x) and https://b.example/y.';
    const out = urlCitations(text, [
      { url: 'https://a.example/x', title: 'A', content: 'alpha' },
      { url: 'https://b.example/y', title: 'B', content: 'beta' },
      { url: 'https://c.example/z', title: 'C', content: 'gamma' },
    ]).map((a) => [a.url_citation.start_index, a.url_citation.end_index]);
    assert.deepEqual(out, [
      [4, 36],
      [41, 60],
      [0, 0],
    ]);
    assert.equal(text.slice(4, 36), '[a.example](https://a.example/x)');
    assert.equal(text.slice(41, 60), 'https://b.example/y');
  });
});
