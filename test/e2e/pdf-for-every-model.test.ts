import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { makePdf, pdfDataUri } from '../support/make-pdf.ts';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 28 §5, PDFs for every model: where no endpoint of the plan reads PDFs, the gateway
// sends a PDF's text instead of answering 400 unsupported_content; the `file-parser`
// plugin (OpenRouter's form) forces it (`pdf-text`) or forbids it (`native`). What the
// upstream received is read off the emulators: the text, never the file.

const REPORT = makePdf({ pages: ['Quarterly report', 'Revenue grew by 12 percent'] });
const REPORT_TEXT = 'Quarterly report\n\nRevenue grew by 12 percent';
const REPORT_AS_TEXT = `<file name="report.pdf">\n${REPORT_TEXT}\n</file>`;

const chatPdf = (data: Uint8Array, filename = 'report.pdf') => ({ type: 'file', file: { filename, file_data: pdfDataUri(data) } });
const chatWith = (part: unknown, extra: Record<string, unknown> = {}) => ({
  max_tokens: 20,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, part] }],
  ...extra,
});

/** Every user content part the emulator received, flattened. */
function userParts(body: any): any[] {
  return body.messages
    .filter((m: any) => m.role === 'user')
    .flatMap((m: any) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
}

describe('PDFs for every model', () => {
  let noFiles: OpenAIChatEmulator;
  let readsFiles: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    noFiles = await startOpenAIChatEmulator({ countWith: 'o200k_base' });
    readsFiles = await startOpenAIChatEmulator();
    gw = await startTestGateway({
      credits: '100',
      yaml: `sim: true
providers:
  - { id: sim, options: { chunk_delay_ms: 0 } }
  - { id: gq, kind: openai, profile: groq, base_url: ${noFiles.baseUrl}, api_key: k }
  - { id: oa, kind: openai, profile: openai, base_url: ${readsFiles.baseUrl}, api_key: k }
pdf:
  max_pages: 3
  max_bytes: 200000
models:
  - id: acme/no-files
    context_length: 100000
    endpoints:
      - { provider: gq, model: llama-4, pricing: { prompt: "0.000001", completion: "0.000002" } }
  - id: acme/reads-files
    context_length: 100000
    endpoints:
      - { provider: oa, model: gpt-4.1, pricing: { prompt: "0.000001", completion: "0.000002" } }
`,
    });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await noFiles.close();
    await readsFiles.close();
  });

  for (const stream of [false, true]) {
    test(`chat: a PDF to a model no endpoint of which reads PDFs goes as its text, ${stream ? 'streamed' : 'not streamed'}`, async () => {
      noFiles.reset();
      const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/no-files', stream, ...chatWith(chatPdf(REPORT)) }, auth);
      assert.equal(res.status, 200, res.text);
      assert.equal(noFiles.requests.length, 1);
      const parts = userParts(noFiles.requests[0]!.body);
      assert.deepEqual(
        parts.map((p) => p.type),
        ['text', 'text'],
      );
      assert.equal(parts[1].text, REPORT_AS_TEXT);
    });
  }

  test('responses: an input_file PDF goes as its text', async () => {
    noFiles.reset();
    const res = await postJson(
      `${gw.baseUrl}/responses`,
      {
        model: 'acme/no-files',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'summarize' },
              { type: 'input_file', filename: 'report.pdf', file_data: pdfDataUri(REPORT) },
            ],
          },
        ],
      },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(userParts(noFiles.requests[0]!.body)[1].text, REPORT_AS_TEXT);
  });

  test('messages: a base64 PDF document block goes as its text, its title the file name', async () => {
    noFiles.reset();
    const res = await postJson(
      `${gw.origin}/v1/messages`,
      {
        model: 'acme/no-files',
        max_tokens: 20,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                title: 'report.pdf',
                source: { type: 'base64', media_type: 'application/pdf', data: Buffer.from(REPORT).toString('base64') },
              },
              { type: 'text', text: 'summarize' },
            ],
          },
        ],
      },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(userParts(noFiles.requests[0]!.body)[0].text, REPORT_AS_TEXT);
  });

  test('the sim (which reads no PDF) answers from the text: it echoes the last user message', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', ...chatWith(chatPdf(REPORT)), max_tokens: 200 },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.choices[0].message.content, /Revenue grew by 12 percent/);
  });

  test('a model whose endpoint reads PDFs receives the file unchanged', async () => {
    readsFiles.reset();
    const res = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/reads-files', ...chatWith(chatPdf(REPORT)) }, auth);
    assert.equal(res.status, 200, res.text);
    const parts = userParts(readsFiles.requests[0]!.body);
    assert.equal(parts[1].type, 'file');
    assert.equal(parts[1].file.file_data, pdfDataUri(REPORT));
  });

  test('plugin engine pdf-text forces the text even where the endpoint reads PDFs', async () => {
    readsFiles.reset();
    const plugins = [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }];
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/reads-files', ...chatWith(chatPdf(REPORT), { plugins }) },
      auth,
    );
    assert.equal(res.status, 200, res.text);
    const parts = userParts(readsFiles.requests[0]!.body);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['text', 'text'],
    );
    assert.equal(parts[1].text, REPORT_AS_TEXT);
  });

  test('plugin engine native forbids extraction: no endpoint reads PDFs, so 400 unsupported_content with nothing sent', async () => {
    noFiles.reset();
    const plugins = [{ id: 'file-parser', pdf: { engine: 'native' } }];
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/no-files', ...chatWith(chatPdf(REPORT), { plugins }) },
      auth,
    );
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.code, 'unsupported_content');
    assert.equal(noFiles.requests.length, 0);
  });

  test('an engine the gateway lacks (mistral-ocr) is a 400 naming the engines it has', async () => {
    const plugins = [{ id: 'web' }, { id: 'file-parser', pdf: { engine: 'mistral-ocr' } }];
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/no-files', ...chatWith(chatPdf(REPORT), { plugins }) },
      auth,
    );
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.code, 'invalid_parameter');
    assert.equal(res.json.error.param, 'plugins[1].pdf.engine');
    assert.match(res.json.error.message, /"mistral-ocr".*'pdf-text'.*'native'/);
  });

  test('a malformed PDF is a 400 unreadable_file, in the chat shape and in the messages shape', async () => {
    noFiles.reset();
    const broken = new TextEncoder().encode('%PDF-1.7\nthis is no PDF');
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/no-files', ...chatWith(chatPdf(broken, 'broken.pdf')) },
      auth,
    );
    assert.equal(chat.status, 400, chat.text);
    assert.equal(chat.json.error.code, 'unreadable_file');
    assert.equal(chat.json.error.type, 'invalid_request_error');
    assert.match(chat.json.error.message, /"broken\.pdf"/);
    const messages = await postJson(
      `${gw.origin}/v1/messages`,
      {
        model: 'acme/no-files',
        max_tokens: 20,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: Buffer.from(broken).toString('base64') } },
            ],
          },
        ],
      },
      auth,
    );
    assert.equal(messages.status, 400, messages.text);
    assert.equal(messages.json.type, 'error');
    assert.equal(messages.json.error.type, 'invalid_request_error');
    assert.equal(noFiles.requests.length, 0);
  });

  test('an encrypted PDF is a 400 unreadable_file saying so', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/no-files', ...chatWith(chatPdf(makePdf({ pages: ['x'], encrypted: true }))) },
      auth,
    );
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.code, 'unreadable_file');
    assert.match(res.json.error.message, /encrypted/);
  });

  test('a PDF past pdf.max_pages or pdf.max_bytes is a 413 file_too_large', async () => {
    const long = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/no-files', ...chatWith(chatPdf(makePdf({ pages: ['1', '2', '3', '4'] }))) },
      auth,
    );
    assert.equal(long.status, 413, long.text);
    assert.equal(long.json.error.code, 'file_too_large');
    assert.match(long.json.error.message, /4 pages, more than the 3/);
    const big = makePdf({ pages: ['big'] });
    const padded = new Uint8Array(210_000);
    padded.set(big);
    const large = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/no-files', ...chatWith(chatPdf(padded)) }, auth);
    assert.equal(large.status, 413, large.text);
    assert.equal(large.json.error.code, 'file_too_large');
    assert.match(large.json.error.message, /more than the 200000/);
  });

  test('a PDF slower to read than pdf.timeout_ms is a 413, and the next PDF is read on a fresh thread', async () => {
    // A gateway of its own, whose PDFs may take 500 ms; the PDF thread is the process's, shared with the one above.
    const hasty = await startTestGateway({ yaml: `${SIM_ONLY}pdf: { timeout_ms: 500 }\n` });
    try {
      const hastyAuth = { authorization: `Bearer ${hasty.key}` };
      // One page whose deflated content stream shows 1,000,000 lines: seconds of reading.
      const slow = makePdf({ pages: ['slow slow slow'], repeat: 1_000_000 });
      const res = await postJson(
        `${hasty.baseUrl}/chat/completions`,
        { model: 'switchyard/sim-fast', ...chatWith(chatPdf(slow)) },
        hastyAuth,
      );
      assert.equal(res.status, 413, res.text);
      assert.equal(res.json.error.code, 'file_too_large');
      assert.match(res.json.error.message, /longer than the 500 ms/);
      // The next PDF (through the other gateway, whose PDFs may take the default 10 s: a loaded machine is slow) is read.
      noFiles.reset();
      const next = await postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/no-files', ...chatWith(chatPdf(REPORT)) }, auth);
      assert.equal(next.status, 200, next.text);
      assert.equal(userParts(noFiles.requests[0]!.body)[1].text, REPORT_AS_TEXT);
    } finally {
      await hasty.close();
    }
  });

  test('a PDF is held and charged exactly as its text sent as text', async () => {
    // Many pages of text: the hold and the charge are far from what the file's bytes would give.
    const pages = Array.from({ length: 3 }, (_, p) =>
      Array.from({ length: 40 }, (_, l) => `page ${p + 1} line ${l + 1}: the quick brown fox jumps`).join('\n'),
    );
    const pdf = makePdf({ pages });
    const asText = `<file name="long.pdf">\n${pages.join('\n\n')}\n</file>`;
    const held: bigint[] = [];
    const costs: number[] = [];
    const prompts: number[] = [];
    for (const part of [chatPdf(pdf, 'long.pdf'), { type: 'text', text: asText }]) {
      noFiles.reset();
      noFiles.enqueue({ fault: 'slow-first-byte', delayMs: 200, then: { text: 'ok' } });
      const pending = postJson(`${gw.baseUrl}/chat/completions`, { model: 'acme/no-files', ...chatWith(part) }, auth);
      await noFiles.whenRequests(1);
      // The credit hold as taken at admission (its row may not be written yet: the in-flight journal).
      held.push(await gw.services.reservations.heldFor(gw.accountId));
      const res = await pending;
      assert.equal(res.status, 200, res.text);
      prompts.push(res.json.usage.prompt_tokens);
      costs.push(res.json.usage.cost);
      assert.equal(userParts(noFiles.requests[0]!.body)[1].text, asText);
    }
    assert.equal(held[0], held[1], 'the same hold');
    assert.ok(prompts[0]! > 1000, `the text's tokens were counted (${prompts[0]})`);
    assert.equal(prompts[0], prompts[1], 'the same prompt tokens');
    assert.equal(costs[0], costs[1], 'the same charge');
  });
});
