// What the bedrock adapter sends for Claude's thinking across a tool loop, and for a model
// that is not Claude, through the executor to the Bedrock emulator (which refuses a tool
// history without toolConfig and a thinking budget not under maxTokens, as Bedrock does).

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { canonicalRequest, user, WEATHER_TOOL } from '../../conformance/conformance-fixtures.ts';
import { ExecutorHarness } from '../../conformance/run-through-executor.ts';
import { BEDROCK_SUBJECT } from '../../conformance/subjects/bedrock-subject.ts';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../../emulators/bedrock-emulator.ts';

describe('bedrock request shapes', () => {
  let emu: BedrockEmulator;
  let claude: ExecutorHarness;
  let nova: ExecutorHarness;

  before(async () => {
    process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
    emu = await startBedrockEmulator();
    claude = new ExecutorHarness(BEDROCK_SUBJECT, emu.baseUrl);
    nova = new ExecutorHarness({ ...BEDROCK_SUBJECT, upstreamModel: 'amazon.nova-pro-v1:0' }, emu.baseUrl);
  });
  after(async () => {
    await claude.close();
    await nova.close();
    await emu.close();
  });
  beforeEach(() => emu.reset());

  it('Claude thinking with tools: the signed reasoning replayed first, the budget under maxTokens, the interleaved beta, a forced choice left to the model', async () => {
    const request = canonicalRequest({
      messages: [
        user('Weather in Paris?'),
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'I should call get_weather.', signature: 'sig-abc' },
            { type: 'tool-call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'tooluse_1', content: 'sunny', isError: false }] },
      ],
      tools: [WEATHER_TOOL],
      toolChoice: { type: 'required' },
      reasoning: { effort: 'low' },
      maxOutputTokens: 500,
    });
    const result = await claude.run(request);
    assert.equal(result.error, null, result.error?.message);
    const body = emu.requests[0]!.body;
    assert.deepEqual(body.messages[1].content[0], {
      reasoningContent: { reasoningText: { text: 'I should call get_weather.', signature: 'sig-abc' } },
    });
    assert.deepEqual(body.messages[1].content[1], { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } });
    assert.deepEqual(body.messages[2].content[0], {
      toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'sunny' }], status: 'success' },
    });
    assert.deepEqual(body.additionalModelRequestFields.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.deepEqual(body.additionalModelRequestFields.anthropic_beta, ['interleaved-thinking-2025-05-14']);
    assert.ok(body.inferenceConfig.maxTokens > 1024);
    assert.deepEqual(body.toolConfig.toolChoice, { auto: {} });
  });

  it('a history of tool calls with the tools no longer offered: declared again, bare, so Bedrock takes it', async () => {
    const result = await claude.run(
      canonicalRequest({
        messages: [
          user('Weather in Paris?'),
          { role: 'assistant', content: [{ type: 'tool-call', id: 'tooluse_2', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'tooluse_2', content: 'sunny' }] },
        ],
      }),
    );
    assert.equal(result.error, null, result.error?.message);
    assert.deepEqual(emu.requests[0]!.body.toolConfig, {
      tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
    });
  });

  it('a model that is not Claude: no thinking fields, no invented maxTokens, top_p kept beside temperature', async () => {
    const result = await nova.run(canonicalRequest({ reasoning: { effort: 'high' }, sampling: { temperature: 1.5, topP: 0.9 } }));
    assert.equal(result.error, null, result.error?.message);
    const body = emu.requests[0]!.body;
    assert.equal(emu.requests[0]!.model, 'amazon.nova-pro-v1:0');
    assert.equal(body.additionalModelRequestFields, undefined);
    assert.deepEqual(body.inferenceConfig, { temperature: 1, topP: 0.9 });
  });

  it('images and files by URL, and audio, are refused as unsupported_content before anything is sent', async () => {
    for (const part of [
      { type: 'image' as const, url: 'https://example.com/cat.png' },
      { type: 'file' as const, url: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
    ]) {
      const result = await claude.run(canonicalRequest({ messages: [user('What is this?', part)] }));
      assert.equal(result.error?.code, 'unsupported_content');
      assert.match(result.error.message, /Bedrock takes (images|documents) inline only/);
    }
    assert.equal(emu.requests.length, 0);
  });
});
