import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The moderation memo remembers a long clear text by the SHA-256 of its UTF-8 bytes. UTF-8
// cannot carry a lone UTF-16 surrogate: it is encoded as U+FFFD, so a text with one and the
// same text with U+FFFD in its place had one key. A rule telling them apart (here, any
// U+FFFD) was then bypassed: the first text, clear, was remembered, and the second, which
// the rule flags, was let through as remembered. Texts that are not well-formed UTF-16 are
// now read every time, never remembered.

describe('moderation memo: a remembered text is exactly the text read', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      yaml: `sim: true
providers:
  - id: guarded
    kind: sim
    moderated: true
    options: { chunk_delay_ms: 0 }
models:
  - id: acme/guarded
    context_length: 8000
    endpoints:
      - provider: guarded
        model: g
        pricing: { prompt: "0", completion: "0" }
moderation:
  rules:
    - name: replacement-character
      patterns: ["\\\\x{FFFD}"]
`,
    });
  });
  after(async () => {
    await gw.close();
  });

  const ask = (content: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/guarded', messages: [{ role: 'user', content }] },
      { authorization: `Bearer ${gw.key}` },
    );

  test('a long text with a lone surrogate, found clear, does not let the same text with U+FFFD through', async () => {
    const padding = 'a long text that an agent sends on every turn. '.repeat(8);
    assert.ok(padding.length >= 256);
    const lone = `${padding}\ud800 end`;
    const replaced = `${padding}\ufffd end`;
    for (let i = 0; i < 2; i++) assert.equal((await ask(lone)).status, 200, 'the lone surrogate is not U+FFFD to the rule');
    const res = await ask(replaced);
    assert.equal(res.status, 403);
    assert.deepEqual(res.json.error.metadata.reasons, ['replacement-character']);
    // And the other way round: the flagged text remembered nothing, the lone one is still clear.
    assert.equal((await ask(lone)).status, 200);
  });
});
