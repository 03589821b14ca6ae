import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// What a client can make the gateway hold or store: the model list is capped (and
// de-duplicated in linear time), the end-user id, metadata and model ids are bounded at
// decode time (a 400 in the dialect's shape), and the app headers are truncated when
// stored in the generation record.

const MODEL = 'switchyard/sim-fast';
const chatBody = (extra: Record<string, unknown>) => ({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...extra });
const responsesBody = (extra: Record<string, unknown>) => ({ model: MODEL, input: 'hi', ...extra });
const messagesBody = (extra: Record<string, unknown>) => ({
  model: MODEL,
  max_tokens: 8,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

type Dialect = 'chat' | 'responses' | 'messages';
const PATHS: Record<Dialect, string> = { chat: '/chat/completions', responses: '/responses', messages: '/messages' };
const BODIES: Record<Dialect, (extra: Record<string, unknown>) => unknown> = {
  chat: chatBody,
  responses: responsesBody,
  messages: messagesBody,
};

function assert400(res: { status: number; json: any; text: string }, dialect: Dialect, word: string): void {
  assert.equal(res.status, 400, res.text.slice(0, 300));
  if (dialect === 'messages') assert.equal(res.json.type, 'error');
  else assert.ok('param' in res.json.error);
  assert.equal(res.json.error.type, 'invalid_request_error');
  assert.equal(res.json.error.code, 'invalid_parameter');
  assert.ok(res.json.error.message.includes(word), `"${res.json.error.message}" names ${word}`);
}

describe('client strings and lists are bounded', () => {
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    gw = await startTestGateway();
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(() => gw.close());

  const post = (dialect: Dialect, extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
    postJson(gw.baseUrl + PATHS[dialect], BODIES[dialect](extra), { ...auth, ...headers });

  for (const dialect of ['chat', 'responses', 'messages'] as const) {
    test(`${dialect}: 65 models → 400 naming the cap of 64`, async () => {
      assert400(await post(dialect, { models: Array.from({ length: 65 }, (_, i) => `acme/m-${i}`) }), dialect, '64');
    });

    test(`${dialect}: models and fallbacks count together`, async () => {
      const models = Array.from({ length: 40 }, (_, i) => `acme/m-${i}`);
      const fallbacks = Array.from({ length: 25 }, (_, i) => ({ model: `acme/f-${i}` }));
      assert400(await post(dialect, { models, fallbacks }), dialect, '64');
    });

    test(`${dialect}: 64 models (duplicates of the primary included) are served`, async () => {
      const res = await post(dialect, { models: Array.from({ length: 64 }, () => MODEL) });
      assert.equal(res.status, 200, res.text.slice(0, 300));
    });

    test(`${dialect}: a model id over 256 characters → 400`, async () => {
      assert400(await post(dialect, { model: `acme/${'m'.repeat(300)}` }), dialect, '256');
    });
  }

  test('80,000 model names are refused at once, and the server keeps answering', async () => {
    const models = Array.from({ length: 80_000 }, (_, i) => `acme/model-${i}`);
    const [flood, other] = await Promise.all([post('chat', { models }), post('chat', {})]);
    assert400(flood, 'chat', '64');
    assert.equal(other.status, 200);
  });

  test('chat: a user id over 256 characters → 400; at 256 it is stored', async () => {
    assert400(await post('chat', { user: 'u'.repeat(257) }), 'chat', '256');
    const ok = await post('chat', { user: 'u'.repeat(256) });
    assert.equal(ok.status, 200);
    const rec = await fetch(`${gw.origin}/api/v1/generation?id=${ok.headers.get('x-generation-id')}`, { headers: auth });
    assert.equal(((await rec.json()) as any).data.user, 'u'.repeat(256));
  });

  test('responses: user and safety_identifier over 256 characters → 400', async () => {
    assert400(await post('responses', { user: 'u'.repeat(257) }), 'responses', 'user');
    assert400(await post('responses', { safety_identifier: 's'.repeat(257) }), 'responses', 'safety_identifier');
  });

  test('messages: metadata.user_id over 256 characters → 400', async () => {
    assert400(await post('messages', { metadata: { user_id: 'u'.repeat(257) } }), 'messages', 'metadata.user_id');
  });

  for (const dialect of ['chat', 'responses'] as const) {
    test(`${dialect}: metadata beyond OpenAI's bounds → 400`, async () => {
      const pairs = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
      assert400(await post(dialect, { metadata: pairs }), dialect, '16');
      assert400(await post(dialect, { metadata: { ['k'.repeat(65)]: 'v' } }), dialect, '64');
      assert400(await post(dialect, { metadata: { k: 'v'.repeat(513) } }), dialect, '512');
      assert.equal((await post(dialect, { metadata: { k: 'v'.repeat(512) } })).status, 200);
    });
  }

  test('long app headers are truncated in the record; a refusal stores none of them', async () => {
    const headers = { 'x-title': 'T'.repeat(5000), 'http-referer': `https://example.com/${'r'.repeat(5000)}` };
    const served = await post('chat', {}, headers);
    assert.equal(served.status, 200);
    const refused = await post('chat', { model: 'acme/no-such-model' }, headers);
    assert.equal(refused.status, 400);
    await gw.flush();
    const rec = await fetch(`${gw.origin}/api/v1/generation?id=${served.headers.get('x-generation-id')}`, { headers: auth });
    assert.equal(rec.status, 200);
    const g = ((await rec.json()) as any).data;
    assert.equal(g.app_title, 'T'.repeat(512));
    assert.equal(g.http_referer.length, 512);
    // Refusals are counted, not recorded (store/sqlite/refusal-counts.ts).
    const none = await fetch(`${gw.origin}/api/v1/generation?id=${refused.headers.get('x-generation-id')}`, { headers: auth });
    assert.equal(none.status, 404);
  });
});
