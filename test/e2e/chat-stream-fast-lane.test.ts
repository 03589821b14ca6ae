import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastLaneChunkCount } from '../../src/providers/openai/openai-chat-stream-decoder.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, sseData, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The pass-through fast lane (docs/architecture.md, "Decisions"): a streamed chat answer
// from an OpenAI-format upstream has its plain text chunks read by string comparison, not
// decoded and re-encoded; what the client gets is the upstream's chunk with only the
// documented rewrites (the gateway's id, the catalog model, `provider`, no fingerprint,
// `native_finish_reason`), the content string copied as the upstream sent it.

const dataLines = (text: string): string[] =>
  text
    .split('\n\n')
    .map((b) =>
      b
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n'),
    )
    .filter((d) => d.length > 0);

describe('the streamed chat fast lane', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-secret' } });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  test('plain text chunks take the fast lane and reach the client as the upstream sent them, with only the documented rewrites', async () => {
    const pieces = ['Fast ', 'lane: ', 'café ', '☕ ', 'plain ', 'words.'];
    emu.enqueue({ text: pieces.join(''), usage: { prompt_tokens: 10, completion_tokens: 6 } });
    const taken = fastLaneChunkCount();
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(fastLaneChunkCount() - taken, pieces.length, 'every text chunk went through the fast lane');

    const id = res.headers.get('x-generation-id')!;
    const data = dataLines(res.text);
    const created = (JSON.parse(data[0]!) as { created: number }).created;
    const head = `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"acme/mock-1","provider":"local","system_fingerprint":null,"choices":`;
    // The emulator's chunk is head + `[{"index":0,"delta":{"content":"<piece>"},"logprobs":null,"finish_reason":null}],"usage":null}`.
    const expected = pieces.map(
      (p) =>
        `${head}[{"index":0,"delta":{"content":${JSON.stringify(p)}},"logprobs":null,"finish_reason":null,"native_finish_reason":null}]}`,
    );
    assert.deepEqual(data.slice(1, 1 + pieces.length), expected);
    for (const p of pieces) assert.ok(res.text.includes(`"delta":{"content":"${p}"}`), `the content bytes of ${p} as sent`);

    // The promises hold: the finish, the usage with its cost, then [DONE], last.
    const events = sseData(res.text) as Array<Record<string, any>>;
    assert.equal(events.at(-1), '[DONE]');
    const usage = events.at(-2)!.usage;
    assert.equal(usage.completion_tokens, 6);
    assert.equal(usage.cost, 10 * 0.000001 + 6 * 0.000002);
    assert.equal(events.at(-3)!.choices[0].finish_reason, 'stop');
  });

  test('a chunk whose text JSON must escape takes the full decode, and the client reads the same text', async () => {
    const text = 'Say "hi"\nthen \\ go ';
    emu.enqueue({ text, chunks: 1 });
    emu.enqueue({ text: 'plain then "quoted" ', chunks: 3 });
    let taken = fastLaneChunkCount();
    let res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(fastLaneChunkCount() - taken, 0);
    const content = (r: string): string =>
      (sseData(r) as Array<any>)
        .filter((e) => e !== '[DONE]' && e.choices?.[0]?.delta?.content !== undefined)
        .map((e) => e.choices[0].delta.content)
        .join('');
    assert.equal(content(res.text), text);

    taken = fastLaneChunkCount();
    res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(fastLaneChunkCount() - taken >= 1, 'the plain chunks of a mixed answer still take the lane');
    assert.equal(content(res.text), 'plain then "quoted" ');
  });

  test('an upstream that reports no usage is charged an estimate of the text the fast lane read', async () => {
    emu.enqueue({ text: 'one two three four five six seven eight ', omitUsage: true });
    const taken = fastLaneChunkCount();
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(fastLaneChunkCount() - taken >= 8);
    const events = sseData(res.text) as Array<Record<string, any>>;
    assert.equal(events.at(-1), '[DONE]');
    assert.ok(events.at(-2)!.usage.completion_tokens >= 8, JSON.stringify(events.at(-2)));
    assert.ok(events.at(-2)!.usage.cost > 0);
  });
});
