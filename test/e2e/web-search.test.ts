import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startFakeSearchBackend, type FakeSearchBackend, type FakeSearchKind } from '../support/fake-search-backend.ts';
import { generationRecord } from '../support/public-api.ts';
import { postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Web search for every model (docs/tools.md, "Web search"): a model whose provider cannot
// search gets the results of the operator's backend in its prompt; the answer cites them as
// `url_citation` annotations; the search is held before it runs and charged at its price.

const PRICE = '0.004';
const CITING = 'Switchyard is a gateway, see [example.com](https://example.com/switchyard).';
const USAGE = { prompt_tokens: 100, completion_tokens: 20 };
/** 100 × 0.000001 + 20 × 0.000002 for the model, plus one search. */
const EXPECTED_COST = 0.00414;

function yaml(upstream: string, search: FakeSearchBackend, kind: FakeSearchKind = 'searxng', more = ''): string {
  return `sim: false
providers:
  - id: oa
    kind: openai
    profile: generic
    base_url: "${upstream}"
  - id: or
    kind: openai
    profile: openrouter
    base_url: "${upstream}"
    unpriced_options: [plugins]
models:
  - id: acme/plain
    context_length: 32000
    endpoints:
      - { provider: oa, model: plain-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
  - id: acme/cheap
    context_length: 32000
    endpoints:
      - { provider: oa, model: cheap-1, pricing: { prompt: "0.0000001", completion: "0.0000001" } }
  - id: acme/routed
    context_length: 32000
    endpoints:
      - { provider: or, model: routed-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
search:
  kind: ${kind}
  url: "${search.url}"
  key: \${SEARCH_KEY}
  price_per_search: "${PRICE}"
  allow_private_addresses: true
${more}`;
}

describe('web search for every model', () => {
  let emu: OpenAIChatEmulator;
  let search: FakeSearchBackend;
  let gw: TestGateway;
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${gw.key}` });
  const chat = (body: Record<string, unknown>, key?: string): ReturnType<typeof postJson> =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { messages: [{ role: 'user', content: 'What is switchyard?' }], max_tokens: 50, ...body },
      key === undefined ? auth() : { authorization: `Bearer ${key}` },
    );

  before(async () => {
    emu = await startOpenAIChatEmulator();
    search = await startFakeSearchBackend('searxng');
    gw = await startTestGateway({ yaml: yaml(emu.baseUrl, search), env: { SEARCH_KEY: 'sx-secret-key-123' }, credits: '10' });
  });
  after(async () => {
    await gw.close();
    await Promise.all([emu.close(), search.close()]);
  });

  function reset(): void {
    emu.reset();
    search.reset();
  }

  /** The system message the gateway put before the last user message, as the upstream received it. */
  function injected(): { role: string; content: string } {
    const messages = emu.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    assert.equal(messages.length, 2, 'the results and the question');
    assert.equal(messages[1]!.role, 'user');
    assert.equal(messages[0]!.role, 'system');
    return messages[0]!;
  }

  test('chat, not streamed: the results go to the model, the answer cites them, the search is charged exactly', async () => {
    reset();
    emu.enqueue({ text: CITING, usage: USAGE });
    const res = await chat({ model: 'acme/plain', plugins: [{ id: 'web', max_results: 2 }] });
    assert.equal(res.status, 200, res.text);
    // The backend was asked the last user message, in SearXNG's format.
    assert.equal(search.requests.length, 1);
    const sent = new URL(search.requests[0]!.url, 'http://x');
    assert.equal(sent.pathname, '/search');
    assert.equal(sent.searchParams.get('format'), 'json');
    assert.equal(sent.searchParams.get('q'), 'What is switchyard?');
    // The upstream got the results, and no `plugins` (its provider cannot search).
    const body = emu.requests[0]!.body;
    assert.equal(body.plugins, undefined);
    const system = injected();
    assert.match(system.content, /^A web search was conducted on \d{4}-\d{2}-\d{2}\./);
    assert.match(
      system.content,
      /\[1\] Switchyard gateway\nURL: https:\/\/example\.com\/switchyard\nSwitchyard is a self-hosted model gateway\./,
    );
    assert.match(
      system.content,
      /\[2\] Web search docs\nURL: https:\/\/docs\.example\.org\/search\nThe gateway runs web search/,
      'HTML marks stripped',
    );

    const message = res.json.choices[0].message;
    assert.equal(message.content, CITING);
    const start = CITING.indexOf('[example.com]');
    assert.deepEqual(message.annotations, [
      {
        type: 'url_citation',
        url_citation: {
          url: 'https://example.com/switchyard',
          title: 'Switchyard gateway',
          content: 'Switchyard is a self-hosted model gateway.',
          start_index: start,
          end_index: CITING.length - 1,
        },
      },
      {
        type: 'url_citation',
        url_citation: {
          url: 'https://docs.example.org/search',
          title: 'Web search docs',
          content: 'The gateway runs web search for every model.',
          start_index: 0,
          end_index: 0,
        },
      },
    ]);
    assert.equal(CITING.slice(start, CITING.length - 1), '[example.com](https://example.com/switchyard)');
    assert.deepEqual(message.citations, ['https://example.com/switchyard', 'https://docs.example.org/search']);
    assert.deepEqual(res.json.usage.server_tool_use, { web_search_requests: 1 });
    assert.equal(res.json.usage.cost, EXPECTED_COST);

    await gw.flush();
    const record = await generationRecord(gw.origin, gw.key, res.json.id);
    assert.equal(record.total_cost, EXPECTED_COST, 'the model and the search, exactly');
    assert.equal(record.cost_breakdown.web_search, PRICE);
    assert.ok(!JSON.stringify(res.json).includes('sx-secret-key'), 'the backend key is never in an answer');
  });

  test('chat, streamed: the annotations come in the finish chunk, the search in the usage chunk', async () => {
    reset();
    emu.enqueue({ text: CITING, usage: USAGE });
    const res = await chat({ model: 'acme/plain', stream: true, web_search_options: { search_context_size: 'low' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(search.requests.length, 1);
    injected();
    assert.equal(emu.requests[0]!.body.web_search_options, undefined, 'not sent to a provider that cannot search');
    const chunks = sseData(res.text).filter((c): c is any => c !== '[DONE]');
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    assert.equal(text, CITING);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason != null)!;
    assert.equal(finish.choices[0].delta.annotations.length, 2);
    assert.equal(finish.choices[0].delta.annotations[0].url_citation.start_index, CITING.indexOf('[example.com]'));
    const usage = chunks.at(-1)!.usage;
    assert.deepEqual(usage.server_tool_use, { web_search_requests: 1 });
    assert.equal(usage.cost, EXPECTED_COST);
  });

  test('responses: the web_search tool is run by the gateway, its sources are url_citation annotations on output_text', async () => {
    reset();
    emu.enqueue({ text: CITING, usage: USAGE }, { text: CITING, usage: USAGE });
    const body = { model: 'acme/plain', input: 'What is switchyard?', tools: [{ type: 'web_search' }], max_output_tokens: 50 };
    const res = await postJson(`${gw.baseUrl}/responses`, body, auth());
    assert.equal(res.status, 200, res.text);
    injected();
    const part = res.json.output.find((i: any) => i.type === 'message').content[0];
    assert.equal(part.text, CITING);
    assert.deepEqual(part.annotations[0], {
      type: 'url_citation',
      start_index: CITING.indexOf('[example.com]'),
      end_index: CITING.length - 1,
      url: 'https://example.com/switchyard',
      title: 'Switchyard gateway',
    });
    assert.deepEqual(res.json.usage.server_tool_use, { web_search_requests: 1 });

    const streamed = await postJson(`${gw.baseUrl}/responses`, { ...body, stream: true }, auth());
    assert.equal(streamed.status, 200);
    const events = sseData(streamed.text) as any[];
    const added = events.filter((e) => e.type === 'response.output_text.annotation.added');
    assert.equal(added.length, 2);
    assert.equal(added[0].annotation.url, 'https://example.com/switchyard');
    const completed = events.find((e) => e.type === 'response.completed');
    assert.equal(completed.response.output[0].content[0].annotations.length, 2);
    assert.equal(search.requests.length, 2);
  });

  test('the hold includes the search: a key that cannot pay for it is refused before the search runs', async () => {
    reset();
    const { key } = await gw.services.accountService.createKey({ accountId: gw.accountId, limitUsd: '0.003' });
    // Without search the cheap model fits the key's limit ...
    const plain = await chat({ model: 'acme/cheap', max_tokens: 10 }, key);
    assert.equal(plain.status, 200, plain.text);
    // ... with a search at 0.004 it does not: 402 before any search or upstream call.
    emu.reset();
    const res = await chat({ model: 'acme/cheap', max_tokens: 10, plugins: [{ id: 'web' }] }, key);
    assert.equal(res.status, 402, res.text);
    assert.equal(res.json.error.metadata.reason, 'key_limit');
    assert.equal(search.requests.length, 0, 'the backend was not called');
    assert.equal(emu.requests.length, 0);
  });

  test('a backend that fails is a 502 search_failed, nothing charged; with on_error "continue" the answer says it went without', async () => {
    reset();
    search.failWith = 503;
    await gw.flush();
    const before = (await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos;
    const res = await chat({ model: 'acme/plain', plugins: [{ id: 'web' }] });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error.code, 'search_failed');
    assert.equal(res.json.error.type, 'provider_error');
    assert.deepEqual(res.json.error.metadata, { backend: 'searxng', reason: 'HTTP 503' });
    assert.equal(emu.requests.length, 0, 'no model called');
    await gw.flush();
    assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos, before, 'nothing charged');

    emu.enqueue({ text: 'No search today.', usage: USAGE });
    const ok = await chat({ model: 'acme/plain', plugins: [{ id: 'web', on_error: 'continue' }] });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.choices[0].message.web_search, { status: 'skipped', reason: 'the web search failed (HTTP 503)' });
    assert.equal(ok.json.choices[0].message.annotations, undefined);
    assert.equal(ok.json.usage.server_tool_use, undefined, 'no search charged');
    assert.equal(ok.json.usage.cost, 0.00014);
    assert.equal((emu.requests[0]!.body.messages as unknown[]).length, 1, 'the model got the question alone');

    // Streamed, the finish chunk's delta says so.
    emu.enqueue({ text: 'No search today.', usage: USAGE });
    const streamed = await chat({ model: 'acme/plain', stream: true, search_parameters: { mode: 'on', on_error: 'continue' } });
    assert.equal(streamed.status, 200, streamed.text);
    const finish = (sseData(streamed.text) as any[]).find((c) => c !== '[DONE]' && c.choices[0]?.finish_reason != null);
    assert.deepEqual(finish.choices[0].delta, { web_search: { status: 'skipped', reason: 'the web search failed (HTTP 503)' } });
  });

  test('a backend that is down (connection refused) is a 502 in the responses error shape too', async () => {
    const down = await startFakeSearchBackend('searxng');
    await down.close();
    const other = await startTestGateway({ yaml: yaml(emu.baseUrl, down), env: { SEARCH_KEY: 'k' } });
    try {
      emu.reset();
      const res = await postJson(
        `${other.baseUrl}/responses`,
        { model: 'acme/plain', input: 'hi', tools: [{ type: 'web_search_preview' }] },
        { authorization: `Bearer ${other.key}` },
      );
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.error.code, 'search_failed');
      assert.equal(res.json.error.metadata.reason, 'connection refused');
      assert.equal(emu.requests.length, 0);
    } finally {
      await other.close();
    }
  });

  test('a backend that hangs is cut at search.timeout_ms: 502 "timed out"', async () => {
    const slow = await startFakeSearchBackend('searxng');
    slow.hang = true;
    const other = await startTestGateway({ yaml: yaml(emu.baseUrl, slow, 'searxng', '  timeout_ms: 300\n'), env: { SEARCH_KEY: 'k' } });
    try {
      emu.reset();
      const res = await postJson(
        `${other.baseUrl}/chat/completions`,
        { model: 'acme/plain', messages: [{ role: 'user', content: 'hi' }], plugins: [{ id: 'web' }] },
        { authorization: `Bearer ${other.key}` },
      );
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.error.metadata.reason, 'timed out');
      assert.equal(slow.requests.length, 1);
      assert.equal(emu.requests.length, 0);
    } finally {
      await other.close();
      await slow.close();
    }
  });

  test('the request deadline counts the search: past timeouts.request_ms it is a 408, nothing charged', async () => {
    const slow = await startFakeSearchBackend('searxng');
    slow.hang = true;
    const other = await startTestGateway({
      yaml: yaml(emu.baseUrl, slow, 'searxng', 'timeouts:\n  request_ms: 300\n'),
      env: { SEARCH_KEY: 'k' },
    });
    try {
      emu.reset();
      const res = await postJson(
        `${other.baseUrl}/chat/completions`,
        { model: 'acme/plain', messages: [{ role: 'user', content: 'hi' }], plugins: [{ id: 'web' }] },
        { authorization: `Bearer ${other.key}` },
      );
      assert.equal(res.status, 408, res.text);
      assert.equal(res.json.error.code, 'timeout');
      assert.equal(emu.requests.length, 0);
      await other.flush();
      assert.equal((await other.services.stores.accounts.getAccount(other.accountId))!.balanceNanos, 100_000_000_000n, 'nothing charged');
    } finally {
      await other.close();
      await slow.close();
    }
  });

  test("messages: Anthropic's web_search server tool is run by the gateway, counted in Anthropic's usage field", async () => {
    reset();
    emu.enqueue({ text: CITING, usage: USAGE });
    const res = await postJson(
      `${gw.baseUrl}/messages`,
      {
        model: 'acme/plain',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'What is switchyard?' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      },
      { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' },
    );
    assert.equal(res.status, 200, res.text);
    injected();
    assert.equal(res.json.content[0].text, CITING);
    assert.deepEqual(res.json.usage.server_tool_use, { web_search_requests: 1 });
  });

  test("Gemini's API: the googleSearch tool is run by the gateway", async () => {
    reset();
    emu.enqueue({ text: CITING, usage: USAGE });
    const res = await postJson(
      `${gw.origin}/v1beta/models/acme/plain:generateContent`,
      {
        contents: [{ role: 'user', parts: [{ text: 'What is switchyard?' }] }],
        tools: [{ googleSearch: {} }],
      },
      { 'x-goog-api-key': gw.key },
    );
    assert.equal(res.status, 200, res.text);
    injected();
    assert.equal(search.requests.length, 1);
    assert.equal(res.json.candidates[0].content.parts[0].text, CITING);
  });

  test('native: a provider that searches itself gets the plugin as sent, and the backend is not called', async () => {
    reset();
    const res = await chat({ model: 'acme/routed', plugins: [{ id: 'web', max_results: 3 }] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(emu.requests[0]!.body.plugins, [{ id: 'web', max_results: 3 }]);
    assert.equal(search.requests.length, 0);
    assert.equal(res.json.usage.server_tool_use, undefined);
    // The :online suffix is OpenRouter's shorthand for the plugin: native here too ...
    emu.reset();
    assert.equal((await chat({ model: 'acme/routed:online' })).status, 200);
    assert.deepEqual(emu.requests[0]!.body.plugins, [{ id: 'web' }]);
    assert.equal(search.requests.length, 0);
    // ... and the gateway's search on a model that cannot search; engine names the backend.
    emu.reset();
    assert.equal((await chat({ model: 'acme/plain:online' })).status, 200);
    assert.equal(search.requests.length, 1);
    emu.reset();
    assert.equal((await chat({ model: 'acme/routed', plugins: [{ id: 'web', engine: 'exa' }] })).status, 200);
    assert.equal(emu.requests[0]!.body.plugins, undefined);
    assert.equal(search.requests.length, 2);
  });

  test('requests without search are untouched, and bad search options are a 400 naming the field', async () => {
    reset();
    const res = await chat({ model: 'acme/plain', search_parameters: { mode: 'off' } });
    assert.equal(res.status, 200);
    assert.equal(search.requests.length, 0);
    assert.equal((emu.requests[0]!.body.messages as unknown[]).length, 1);
    for (const [body, param] of [
      [{ plugins: [{ id: 'web', max_results: 31 }] }, 'plugins[0].max_results'],
      [{ search_parameters: { mode: 'sometimes' } }, 'search_parameters.mode'],
      [{ search_parameters: { from_date: 'yesterday' } }, 'search_parameters.from_date'],
      [{ web_search_options: { search_context_size: 'huge' } }, 'web_search_options.search_context_size'],
    ] as const) {
      const bad = await chat({ model: 'acme/plain', ...body });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.error.param, param);
    }
    assert.equal(search.requests.length, 0);
  });
});

describe('each backend kind speaks its own wire format', () => {
  let emu: OpenAIChatEmulator;
  before(async () => {
    emu = await startOpenAIChatEmulator();
  });
  after(async () => {
    await emu.close();
  });

  for (const kind of ['brave', 'tavily', 'exa'] as const) {
    test(kind, async () => {
      const search = await startFakeSearchBackend(kind);
      const gw = await startTestGateway({ yaml: yaml(emu.baseUrl, search, kind), env: { SEARCH_KEY: `${kind}-key` } });
      try {
        emu.reset();
        const res = await postJson(
          `${gw.baseUrl}/chat/completions`,
          {
            model: 'acme/plain',
            messages: [{ role: 'user', content: 'news about gateways' }],
            search_parameters: {
              mode: 'on',
              max_search_results: 4,
              from_date: '2026-01-01',
              to_date: '2026-02-01',
              sources: [{ type: 'web', allowed_websites: ['example.com'] }],
            },
          },
          { authorization: `Bearer ${gw.key}` },
        );
        assert.equal(res.status, 200, res.text);
        assert.equal(emu.requests[0]!.body.search_parameters, undefined);
        const system = (emu.requests[0]!.body.messages as Array<{ content: string }>)[0]!.content;
        assert.match(system, /URL: https:\/\/example\.com\/switchyard\nSwitchyard is a self-hosted model gateway\./);
        assert.equal(res.json.choices[0].message.annotations.length, 2);
        const sent = search.requests[0]!;
        if (kind === 'brave') {
          const url = new URL(sent.url, 'http://x');
          assert.equal(sent.method, 'GET');
          assert.equal(url.pathname, '/res/v1/web/search');
          assert.equal(url.searchParams.get('q'), 'news about gateways');
          assert.equal(url.searchParams.get('count'), '4');
          assert.equal(url.searchParams.get('freshness'), '2026-01-01to2026-02-01');
          assert.equal(sent.headers['x-subscription-token'], 'brave-key');
        } else if (kind === 'tavily') {
          assert.equal(sent.method, 'POST');
          assert.equal(sent.url, '/search');
          assert.equal(sent.headers.authorization, 'Bearer tavily-key');
          assert.deepEqual(sent.body, {
            query: 'news about gateways',
            max_results: 4,
            include_domains: ['example.com'],
            start_date: '2026-01-01',
            end_date: '2026-02-01',
          });
        } else {
          assert.equal(sent.method, 'POST');
          assert.equal(sent.url, '/search');
          assert.equal(sent.headers['x-api-key'], 'exa-key');
          assert.deepEqual(sent.body, {
            query: 'news about gateways',
            numResults: 4,
            contents: { text: { maxCharacters: 1500 } },
            includeDomains: ['example.com'],
            startPublishedDate: '2026-01-01',
            endPublishedDate: '2026-02-01',
          });
        }
      } finally {
        await gw.close();
        await search.close();
      }
    });
  }

  test('a backend on a private address is refused unless the operator allows it', async () => {
    const search = await startFakeSearchBackend('searxng');
    const gw = await startTestGateway({
      yaml: yaml(emu.baseUrl, search).replace('  allow_private_addresses: true\n', ''),
      env: { SEARCH_KEY: 'k' },
    });
    try {
      const res = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/plain', messages: [{ role: 'user', content: 'hi' }], plugins: [{ id: 'web' }] },
        { authorization: `Bearer ${gw.key}` },
      );
      assert.equal(res.status, 502, res.text);
      assert.match(res.json.error.metadata.reason, /private or loopback address/);
      assert.equal(search.requests.length, 0);
    } finally {
      await gw.close();
      await search.close();
    }
  });
});
