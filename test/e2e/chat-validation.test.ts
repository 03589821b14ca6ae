import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

const msgs = [{ role: 'user', content: 'hi' }];
const base = { model: 'switchyard/sim-fast', messages: msgs };

// [what, body, expected code, a word the message must contain]
const CASES: Array<[string, unknown, string, string]> = [
  ['malformed JSON', '{"model": ', 'invalid_json', 'JSON'],
  ['a JSON array body', '[1,2]', 'invalid_json', 'object'],
  ['missing messages', { model: 'switchyard/sim-fast' }, 'missing_parameter', 'messages'],
  ['empty messages', { ...base, messages: [] }, 'invalid_parameter', 'messages'],
  ['temperature above 2', { ...base, temperature: 3 }, 'invalid_parameter', 'temperature'],
  ['top_p above 1', { ...base, top_p: 1.5 }, 'invalid_parameter', 'top_p'],
  ['max_tokens below 1', { ...base, max_tokens: 0 }, 'invalid_parameter', 'max_tokens'],
  ['frequency_penalty below -2', { ...base, frequency_penalty: -3 }, 'invalid_parameter', 'frequency_penalty'],
  ['presence_penalty above 2', { ...base, presence_penalty: 2.5 }, 'invalid_parameter', 'presence_penalty'],
  ['repetition_penalty of 0', { ...base, repetition_penalty: 0 }, 'invalid_parameter', 'repetition_penalty'],
  ['negative top_k', { ...base, top_k: -1 }, 'invalid_parameter', 'top_k'],
  ['min_p above 1', { ...base, min_p: 2 }, 'invalid_parameter', 'min_p'],
  ['top_a below 0', { ...base, top_a: -0.1 }, 'invalid_parameter', 'top_a'],
  ['a bad role', { ...base, messages: [{ role: 'robot', content: 'x' }] }, 'invalid_message', 'role'],
  ['a bad content part', { ...base, messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] }, 'invalid_message', 'type'],
  ['an invalid tool_choice', { ...base, tool_choice: 'sometimes' }, 'invalid_parameter', 'tool_choice'],
  ['top_k with reasoning', { ...base, top_k: 5, reasoning: { effort: 'high' } }, 'reasoning_conflict', 'top_k'],
  [
    'a forced tool_choice with reasoning',
    {
      ...base,
      reasoning: { max_tokens: 2000 },
      tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    },
    'reasoning_conflict',
    'tool_choice',
  ],
  [
    'five cache_control blocks',
    {
      ...base,
      messages: [
        {
          role: 'user',
          content: Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `p${i}`, cache_control: { type: 'ephemeral' } })),
        },
      ],
    },
    'too_many_cache_control_blocks',
    'cache_control',
  ],
  ['max_search_results of 31', { ...base, search_parameters: { max_search_results: 31 } }, 'invalid_parameter', 'max_search_results'],
  ['an unknown model', { ...base, model: 'nobody/nothing' }, 'model_not_found', 'nobody/nothing'],
];

describe('chat request validation over HTTP', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  for (const [what, body, code, word] of CASES) {
    test(`${what} → 400 ${code}`, async () => {
      const res = await postJson(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${gw.key}` });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.code, code);
      assert.ok(res.json.error.message.toLowerCase().includes(word.toLowerCase()), `message "${res.json.error.message}" names ${word}`);
    });
  }

  test('unknown fields are ignored and the deprecated prompt becomes a user message', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', prompt: 'echo this', frobnicate: true },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.choices[0].message.content, /echo this/);
  });

  test('a body sent without a JSON content type (curl -d) is still read as JSON', async () => {
    const res = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify(base),
    });
    assert.equal(res.status, 200);
  });

  test('every endpoint is also served under /api/v1', async () => {
    // Every route the app has under /v1, read from its route table, has its twin under /api/v1.
    const routes = routeTable(gw.app.printRoutes({ commonPrefix: false }));
    const v1 = routes.filter((r) => r.url.startsWith('/v1/'));
    assert.ok(v1.length >= 8, `routes found: ${JSON.stringify(routes)}`);
    for (const { method, url } of v1) {
      assert.ok(gw.app.hasRoute({ method: method, url: `/api${url}` }), `${method} /api${url}`);
    }
    // Besides the twins, only the unprefixed probes (/health, /ready: docs/operations.md)
    // and /metrics, the dashboard with its root redirect (docs/dashboard.md), and Gemini's
    // API under its own version (docs/gemini-api.md), and /mcp, the one MCP endpoint (docs/mcp-endpoint.md).
    const others = routes.filter((r) => !r.url.startsWith('/v1/') && !r.url.startsWith('/api/v1/'));
    assert.deepEqual([...new Set(others.map((r) => r.url))].sort(), [
      '/',
      '/dashboard',
      '/dashboard/',
      '/dashboard/*',
      '/health',
      '/mcp',
      '/metrics',
      '/ready',
      '/v1beta/models',
      '/v1beta/models/*',
    ]);
    // Under /api/v1 only: the dashboard's session (sign-in, a member's emailed sign-in link, single sign-on) and playground-key routes, which no API client calls.
    const apiOnly = routes.filter((r) => r.url.startsWith('/api/v1/') && !gw.app.hasRoute({ method: r.method, url: r.url.slice(4) }));
    assert.deepEqual([...new Set(apiOnly.map((r) => r.url))].sort(), [
      '/api/v1/dashboard/playground-key',
      '/api/v1/dashboard/session',
      '/api/v1/sessions/email',
      '/api/v1/sessions/email/redeem',
      '/api/v1/sessions/oidc/callback',
      '/api/v1/sessions/oidc/start',
    ]);
    assert.equal(routes.length, 2 * v1.length + others.length + apiOnly.length, 'and nothing else');
    // And the twin answers like the original.
    const res = await postJson(`${gw.origin}/api/v1/chat/completions`, base, { authorization: `Bearer ${gw.key}` });
    assert.equal(res.status, 200);
    assert.equal(res.json.object, 'chat.completion');
  });
});

/** Method and full path of each route in Fastify's printed route tree. */
function routeTable(tree: string): Array<{ method: string; url: string }> {
  const out: Array<{ method: string; url: string }> = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (.+?)(?: \(([^)]+)\))?$/.exec(line);
    if (m === null) continue;
    const depth = m[1]!.length / 4;
    const parent = depth === 0 ? '' : stack[depth - 1]!;
    // The tree prints a wildcard child (`/v1/models/*`) as a bare `*` under its parent.
    const url = parent + (m[2] === '*' && !parent.endsWith('/') ? '/*' : m[2]!);
    stack[depth] = url;
    for (const method of m[3]?.split(', ') ?? []) out.push({ method, url });
  }
  return out;
}
