import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

const UPSTREAM_KEY = 'upk-9Rt4XwQ2mZ7sLp';

const SECOND_MODEL = `  - id: acme/mock-2
    name: Mock Two
    context_length: 32000
    capabilities: [text, streaming]
    endpoints:
      - provider: local
        model: mock-model-2
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;

/** The request log's JSON lines, as the gateway wrote them. */
class LogCapture {
  readonly text: string[] = [];
  write(line: string): void {
    this.text.push(line);
  }
  get lines(): any[] {
    return this.text.map((l) => JSON.parse(l));
  }
  requestLine(generationId: string): any {
    const found = this.lines.filter((l) => l.msg === 'request' && l.generation_id === generationId);
    assert.equal(found.length, 1, `one request line for ${generationId}`);
    return found[0];
  }
}

describe('request log', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  const log = new LogCapture();
  let auth: Record<string, string>;
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl, SECOND_MODEL), env: { LOCAL_KEY: UPSTREAM_KEY }, logDestination: log });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('writes one JSON line per request at info: ids, account, key label, app, model, provider, attempts, status, latency, TTFT, tokens, cost', async () => {
    emu.enqueue({ text: 'hello back', usage: { prompt_tokens: 10, completion_tokens: 4 } });
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', messages: [{ role: 'user', content: 'hi' }] },
      { ...auth, 'x-title': 'My App' },
    );
    assert.equal(r.status, 200, r.text);
    const line = log.requestLine(r.headers.get('x-generation-id')!);
    assert.equal(line.level, 30, 'info');
    assert.equal(line.account, gw.accountId);
    const label = (await gw.services.stores.accounts.getKey(gw.keyHash))!.label;
    assert.equal(line.key_label, label);
    assert.ok(!JSON.stringify(line).includes(gw.key));
    assert.equal(line.app, 'My App');
    assert.equal(line.route, 'chat');
    assert.equal(line.model, 'acme/mock-1');
    assert.equal(line.provider, 'local');
    assert.equal(line.upstream_model, 'mock-model');
    assert.equal(line.status, 200);
    assert.equal(line.error, null);
    assert.equal(line.attempts.length, 1);
    assert.equal(line.attempts[0].provider, 'local');
    assert.equal(line.attempts[0].status, 200);
    assert.equal(line.attempts[0].error, null);
    assert.equal(typeof line.latency_ms, 'number');
    assert.equal(typeof line.ttft_ms, 'number');
    assert.deepEqual(line.tokens, { prompt: 10, completion: 4, cache_read: 0, cache_write: 0, reasoning: 0 });
    assert.equal(line.cost_usd, '0.000018');
    assert.equal(typeof line.time, 'number');
  });

  test('a fallback logs the failed attempt at warn, the request line holds both attempts; a tripped circuit is a warn line', async () => {
    let last = '';
    for (let i = 0; i < 5; i++) {
      emu.enqueue({ fault: 'status', status: 503 }, { text: 'from the fallback' });
      const r = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', models: ['acme/mock-1', 'acme/mock-2'], messages: [{ role: 'user', content: 'hi' }] },
        auth,
      );
      assert.equal(r.status, 200, r.text);
      last = r.headers.get('x-generation-id')!;
    }
    const line = log.requestLine(last);
    assert.equal(line.model, 'acme/mock-2');
    assert.deepEqual(
      line.attempts.map((a: any) => a.status),
      [503, 200],
    );
    assert.notEqual(line.attempts[0].error, null);
    const warns = log.lines.filter((l) => l.level === 40 && l.generation_id === last);
    assert.equal(warns.length, 1);
    assert.equal(warns[0].msg, 'upstream attempt failed, falling back');
    assert.equal(warns[0].status, 503);
    const opened = log.lines.filter((l) => l.msg === 'circuit opened');
    assert.equal(opened.length, 1);
    assert.equal(opened[0].level, 40);
    assert.equal(opened[0].consecutive_failures, 5);
  });

  test('a refusal at admission is logged with its status and error code', async () => {
    const r = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'nobody/nothing', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(r.status, 400);
    const line = log.requestLine(r.headers.get('x-generation-id')!);
    assert.equal(line.status, 400);
    assert.equal(line.error, 'model_not_found');
    assert.deepEqual(line.attempts, []);
  });
});

describe('request log: no secret reaches it', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  const log = new LogCapture();
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: UPSTREAM_KEY }, logDestination: log });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('the client key, the upstream key and Authorization headers, sent through every path, appear in no log line', async () => {
    const headers = {
      authorization: `Bearer ${gw.key}`,
      // Client strings that carry secrets: the app title and referer are logged, scrubbed.
      'x-title': `leak ${UPSTREAM_KEY} Authorization: Bearer ${UPSTREAM_KEY}`,
      'http-referer': `https://example.com/?key=${UPSTREAM_KEY}`,
    };
    const bodies: Array<[string, (stream: boolean) => unknown]> = [
      ['chat/completions', (stream) => ({ model: 'acme/mock-1', stream, messages: [{ role: 'user', content: `hi ${UPSTREAM_KEY}` }] })],
      ['messages', (stream) => ({ model: 'acme/mock-1', stream, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })],
      ['responses', (stream) => ({ model: 'acme/mock-1', stream, input: 'hi' })],
    ];
    const faults = [
      null,
      { fault: 'echo-headers', status: 500 },
      { fault: 'echo-headers', status: 401 },
      { fault: 'echo-headers', status: 200 },
    ] as const;
    for (const [path, body] of bodies) {
      for (const stream of [false, true]) {
        for (const fault of faults) {
          if (fault !== null) emu.enqueue(fault);
          const r = await postJson(`${gw.baseUrl}/${path}`, body(stream), headers);
          assert.ok(r.headers.get('x-generation-id') !== null, `${path} answered (${r.status})`);
        }
      }
    }
    // Gemini's API, the key in the query string (?key=): the URL is never logged.
    for (const method of ['generateContent', 'streamGenerateContent?alt=sse', 'streamGenerateContent']) {
      for (const fault of faults) {
        if (fault !== null) emu.enqueue(fault);
        const sep = method.includes('?') ? '&' : '?';
        const r = await postJson(
          `${gw.origin}/v1beta/models/acme/mock-1:${method}${sep}key=${gw.key}`,
          { contents: [{ role: 'user', parts: [{ text: `hi ${UPSTREAM_KEY}` }] }] },
          { 'x-title': headers['x-title'] },
        );
        assert.ok(r.headers.get('x-generation-id') !== null, `gemini ${method} answered (${r.status})`);
      }
    }
    // Refusals: an unknown model, an invalid key (sent as the upstream key), a management-less path.
    await postJson(`${gw.baseUrl}/chat/completions`, { model: `x/${UPSTREAM_KEY}`, messages: [{ role: 'user', content: 'hi' }] }, headers);
    await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/mock-1', messages: [] }, { authorization: `Bearer ${UPSTREAM_KEY}` });
    const text = log.text.join('');
    assert.ok(log.lines.filter((l) => l.msg === 'request').length >= 25, 'the requests were logged');
    assert.ok(
      log.lines.some((l) => l.msg.startsWith('upstream attempt failed')),
      'the upstream errors were logged',
    );
    assert.ok(!text.includes(UPSTREAM_KEY), 'no upstream key');
    assert.ok(!text.includes(gw.key), 'no client key');
    assert.ok(!/Bearer\s+[A-Za-z0-9]/.test(text), 'no Authorization value');
  });
});

describe('LOG_LEVEL', () => {
  let gw: TestGateway;
  const log = new LogCapture();
  before(async () => {
    gw = await startTestGateway({ env: { LOG_LEVEL: 'warn' }, logDestination: log });
  });
  after(() => gw.close());

  test('LOG_LEVEL=warn drops the info request lines but keeps errors', async () => {
    const ok = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(ok.status, 200);
    assert.equal(log.text.length, 0);
    gw.services.telemetry.log.error('an error line');
    assert.equal(log.lines.length, 1);
  });
});
