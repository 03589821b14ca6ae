import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../emulators/bedrock-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// The official openai client (chat completions) through switchyard to AWS Bedrock's Converse
// API: requests SigV4-signed with credentials the AWS chain finds in a named profile of the
// shared credentials file (`aws_profile`), answers streamed (event-stream frames) and not,
// usage normalized and charged exactly at Anthropic-style cache prices.

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

function bedrockConfig(baseUrl: string): string {
  return `sim: false
providers:
  - id: bedrock
    kind: bedrock
    region: us-east-1
    aws_profile: switchyard-test
    base_url: ${baseUrl}
  - id: bedrock-hung
    kind: bedrock
    region: us-east-1
    aws_profile: hung
    timeout_ms: 300
    base_url: ${baseUrl}
  - id: bedrock-wrong
    kind: bedrock
    region: us-east-1
    aws_profile: wrong-secret
    base_url: ${baseUrl}
models:
  - id: acme/claude-bedrock
    name: Claude on Bedrock
    context_length: 200000
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: bedrock
        model: ${MODEL}
        max_output_tokens: 8192
        pricing: { prompt: "0.000003", completion: "0.000015" }
  - id: acme/claude-bedrock-hung
    name: Claude on Bedrock, whose credentials never come
    context_length: 200000
    endpoints:
      - provider: bedrock-hung
        model: ${MODEL}
        pricing: { prompt: "0.000003", completion: "0.000015" }
  - id: acme/claude-bedrock-wrong
    name: Claude on Bedrock, signed with the wrong secret
    context_length: 200000
    endpoints:
      - provider: bedrock-wrong
        model: ${MODEL}
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

const WEATHER: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/** 3000 nano-USD per prompt token; cache reads 0.1x (300), writes 1.25x (3750); 15000 per completion token. */
function expectedCost(input: number, cacheRead: number, cacheWrite: number, output: number): bigint {
  return BigInt(input) * 3000n + BigInt(cacheRead) * 300n + BigInt(cacheWrite) * 3750n + BigInt(output) * 15000n;
}

describe('the official openai client through switchyard to Bedrock (Converse, SigV4)', () => {
  let emu: BedrockEmulator;
  let gw: TestGateway;
  let client: OpenAI;
  let awsDir: string;
  const savedEnv: Record<string, string | undefined> = {};

  before(async () => {
    awsDir = mkdtempSync(join(tmpdir(), 'switchyard-aws-'));
    writeFileSync(
      join(awsDir, 'credentials'),
      [
        '[switchyard-test]',
        `aws_access_key_id = ${TEST_AWS_CREDENTIALS.accessKeyId}`,
        `aws_secret_access_key = ${TEST_AWS_CREDENTIALS.secretAccessKey}`,
        '[wrong-secret]',
        `aws_access_key_id = ${TEST_AWS_CREDENTIALS.accessKeyId}`,
        'aws_secret_access_key = not-the-secret-at-all',
        '',
      ].join('\n'),
    );
    // A credential process that never answers (it records its pid, so the test can end it).
    writeFileSync(
      join(awsDir, 'hang.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(awsDir, 'hang.pid'))}, String(process.pid));\nsetInterval(() => {}, 1 << 30);\n`,
    );
    writeFileSync(join(awsDir, 'config'), `[profile hung]\ncredential_process = ${process.execPath} ${join(awsDir, 'hang.mjs')}\n`);
    // The AWS chain reads the process environment: only the files above may supply credentials.
    for (const name of [
      'AWS_SHARED_CREDENTIALS_FILE',
      'AWS_CONFIG_FILE',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_EC2_METADATA_DISABLED',
    ]) {
      savedEnv[name] = process.env[name];
      delete process.env[name];
    }
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(awsDir, 'credentials');
    process.env.AWS_CONFIG_FILE = join(awsDir, 'config');
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    emu = await startBedrockEmulator();
    gw = await startTestGateway({ yaml: bedrockConfig(emu.baseUrl) });
    client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await emu.close();
    const pidFile = join(awsDir, 'hang.pid');
    if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')));
    rmSync(awsDir, { recursive: true, force: true });
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  beforeEach(() => emu.reset());

  test('non-streamed: a signed Converse request, the answer, usage with cache tokens, the exact cost', async () => {
    emu.enqueue({ text: 'Paris.', usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 1000, cacheWriteInputTokens: 40 } });
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const c = await client.chat.completions.create({
      model: 'acme/claude-bedrock',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      max_tokens: 300,
      temperature: 0.5,
    });
    assert.equal(c.choices[0]!.message.content, 'Paris.');
    assert.equal(c.choices[0]!.finish_reason, 'stop');
    assert.equal(c.usage!.prompt_tokens, 1140, 'inputTokens plus cache reads and writes');
    assert.equal(c.usage!.prompt_tokens_details?.cached_tokens, 1000);
    assert.equal(c.usage!.completion_tokens, 20);

    const r = emu.requests[0]!;
    assert.equal(r.path, `/model/${encodeURIComponent(MODEL)}/converse`);
    assert.match(
      String(r.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIDSWITCHYARDTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    assert.deepEqual(r.body.system, [{ text: 'Be brief.' }]);
    assert.deepEqual(r.body.messages, [{ role: 'user', content: [{ text: 'Capital of France?' }] }]);
    assert.deepEqual(r.body.inferenceConfig, { maxTokens: 300, temperature: 0.5 });

    await gw.flush();
    const cost = expectedCost(100, 1000, 40, 20);
    assert.equal(before - (await gw.services.stores.accounts.balance(gw.accountId))!, cost);
    const record = (await gw.services.stores.generations.getRecord(c.id))!;
    assert.equal(record.provider, 'bedrock');
    assert.equal(record.tokensPrompt, 1140);
    assert.equal(record.tokensCacheRead, 1000);
    assert.equal(record.tokensCacheWrite, 40);
    assert.equal(record.costNanos, cost);
  });

  test('streamed: event-stream frames become chat chunks, a tool call whole, usage last, the exact cost', async () => {
    emu.enqueue({
      text: 'Let me check.',
      chunks: 3,
      toolCalls: [{ id: 'tooluse_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      usage: { inputTokens: 50, outputTokens: 30 },
    });
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const stream = await client.chat.completions.create({
      model: 'acme/claude-bedrock',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: WEATHER,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let args = '';
    let toolId = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      const choice = chunk.choices[0];
      if (choice?.delta.content) text += choice.delta.content;
      for (const t of choice?.delta.tool_calls ?? []) {
        if (t.id) toolId = t.id;
        args += t.function?.arguments ?? '';
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'Let me check.');
    assert.equal(toolId, 'tooluse_abc');
    assert.deepEqual(JSON.parse(args), { city: 'Paris' });
    assert.equal(finish, 'tool_calls');
    assert.equal(usage?.prompt_tokens, 50);
    assert.equal(usage?.completion_tokens, 30);

    const r = emu.requests[0]!;
    assert.equal(r.path, `/model/${encodeURIComponent(MODEL)}/converse-stream`);
    assert.equal(r.body.toolConfig.tools[0].toolSpec.name, 'get_weather');

    await gw.flush();
    const cost = expectedCost(50, 0, 0, 30);
    assert.equal(before - (await gw.services.stores.accounts.balance(gw.accountId))!, cost);
    assert.equal((await gw.services.stores.generations.getRecord(id))!.costNanos, cost);
  });

  test('an upstream that repeats the signed request headers in its 400: the client sees neither the signature nor the key id', async () => {
    emu.enqueue({ fault: 'echo-headers', status: 400 });
    const err = await client.chat.completions.create({ model: 'acme/claude-bedrock', messages: [{ role: 'user', content: 'Hi' }] }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(err.status, 400);
    const signature = /Signature=([0-9a-f]{64})/.exec(String(emu.requests[0]!.headers.authorization))![1]!;
    const seen = JSON.stringify(err.error);
    assert.match(seen, /received headers/, 'the echo reached the client, scrubbed');
    assert.doesNotMatch(seen, new RegExp(signature));
    assert.doesNotMatch(seen, new RegExp(TEST_AWS_CREDENTIALS.accessKeyId));
  });

  test("credentials that never come count against the attempt's deadline: a timeout, nothing sent, nothing charged", async () => {
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const err = await client.chat.completions
      .create({ model: 'acme/claude-bedrock-hung', messages: [{ role: 'user', content: 'Hi' }] })
      .then(
        () => assert.fail('expected an error'),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    assert.equal(err.status, 408);
    assert.equal(emu.requests.length, 0);
    await gw.flush();
    assert.equal(await gw.services.stores.accounts.balance(gw.accountId), before);
  });

  test('a provider whose profile holds the wrong secret is refused by the signature check; the client gets a 502 without it', async () => {
    const before = (await gw.services.stores.accounts.balance(gw.accountId))!;
    const err = await client.chat.completions
      .create({ model: 'acme/claude-bedrock-wrong', messages: [{ role: 'user', content: 'Hi' }] })
      .then(
        () => assert.fail('expected an error'),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    assert.equal(err.status, 502);
    assert.doesNotMatch(JSON.stringify(err.error), /not-the-secret-at-all|AWS4-HMAC-SHA256/);
    assert.equal(emu.requests.length, 1, 'it reached Bedrock, signed');
    await gw.flush();
    assert.equal(await gw.services.stores.accounts.balance(gw.accountId), before, 'nothing charged');
  });
});
