// The Bedrock emulator speaks the real wire: the official @aws-sdk/client-bedrock-runtime
// (ConverseCommand, ConverseStreamCommand), pointed at it with static test credentials,
// signs its requests the way AWS does and reads its answers and event-stream frames. A
// wrong secret is refused as Bedrock refuses it. The SDK's default handler speaks HTTP/2;
// Bedrock also serves HTTP/1.1, which the gateway (undici) and the emulator speak, so the
// SDK is given smithy's HTTP/1.1 handler: the framing and signing are the same.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startBedrockEmulator, TEST_AWS_CREDENTIALS, type BedrockEmulator } from '../emulators/bedrock-emulator.ts';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('Bedrock emulator against the official Bedrock Runtime SDK', () => {
  let emulator: BedrockEmulator;
  let client: BedrockRuntimeClient;

  before(async () => {
    emulator = await startBedrockEmulator();
    client = new BedrockRuntimeClient({
      endpoint: emulator.baseUrl,
      region: 'us-east-1',
      credentials: TEST_AWS_CREDENTIALS,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
  });
  after(async () => {
    client.destroy();
    await emulator.close();
  });
  beforeEach(() => emulator.reset());

  it('Converse: a signed request, its text, tool call, stop reason and usage with cache tokens', async () => {
    emulator.enqueue({
      text: 'Checking.',
      toolCalls: [{ id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 3, cacheWriteInputTokens: 2 },
    });
    const out = await client.send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] },
      }),
    );
    assert.equal(out.stopReason, 'tool_use');
    assert.deepEqual(out.output?.message?.content?.[0], { text: 'Checking.' });
    assert.deepEqual(out.output?.message?.content?.[1]?.toolUse, { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } });
    assert.equal(out.usage?.cacheReadInputTokens, 3);
    assert.equal(out.usage?.cacheWriteInputTokens, 2);
    assert.equal(out.usage?.totalTokens, 20);
    const received = emulator.requests[0]!;
    assert.equal(received.model, MODEL);
    assert.equal(received.stream, false);
    assert.match(
      String(received.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIDSWITCHYARDTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
  });

  it('ConverseStream: event-stream frames decode into the documented events, metadata after messageStop', async () => {
    emulator.enqueue({
      reasoning: 'Think.',
      signature: 'sig-1',
      text: 'Hello there',
      chunks: 2,
      toolCalls: [{ id: 'tu_2', name: 'f', arguments: '{"a":1}' }],
    });
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    const events: string[] = [];
    let text = '';
    let reasoning = '';
    let signature = '';
    let args = '';
    let stopReason: string | undefined;
    let usageTotal: number | undefined;
    for await (const e of out.stream!) {
      const name = Object.keys(e).find((k) => (e as unknown as Record<string, unknown>)[k] !== undefined)!;
      events.push(name);
      if (e.contentBlockDelta?.delta?.text !== undefined) text += e.contentBlockDelta.delta.text;
      if (e.contentBlockDelta?.delta?.reasoningContent?.text !== undefined) reasoning += e.contentBlockDelta.delta.reasoningContent.text;
      if (e.contentBlockDelta?.delta?.reasoningContent?.signature !== undefined)
        signature = e.contentBlockDelta.delta.reasoningContent.signature;
      if (e.contentBlockDelta?.delta?.toolUse?.input !== undefined) args += e.contentBlockDelta.delta.toolUse.input;
      if (e.contentBlockStart?.start?.toolUse !== undefined)
        assert.deepEqual(e.contentBlockStart.start.toolUse, { toolUseId: 'tu_2', name: 'f' });
      if (e.messageStop !== undefined) stopReason = e.messageStop.stopReason;
      if (e.metadata !== undefined) usageTotal = e.metadata.usage?.totalTokens;
    }
    assert.equal(text, 'Hello there');
    assert.equal(reasoning, 'Think.');
    assert.equal(signature, 'sig-1');
    assert.equal(args, '{"a":1}');
    assert.equal(stopReason, 'tool_use');
    assert.ok(usageTotal !== undefined && usageTotal > 0);
    assert.equal(events[0], 'messageStart');
    assert.deepEqual(events.slice(-2), ['messageStop', 'metadata']);
    assert.equal(emulator.requests[0]!.stream, true);
  });

  it('ConverseStream: an exception frame reaches the SDK as the named exception', async () => {
    emulator.enqueue({ fault: 'stream-error', afterChunks: 2, error: { type: 'throttlingException', message: 'Too many tokens' } });
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    await assert.rejects(
      async () => {
        for await (const _ of out.stream!) {
          /* drain */
        }
      },
      (err: Error) => err.name === 'ThrottlingException' && /Too many tokens/.test(err.message),
    );
  });

  it('errors: the SDK reads the type from x-amzn-errortype', async () => {
    emulator.enqueue({ fault: 'status', status: 400 });
    await assert.rejects(
      client.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] })),
      (err: Error & { $metadata?: { httpStatusCode?: number } }) =>
        err.name === 'ValidationException' && err.$metadata?.httpStatusCode === 400,
    );
  });

  it('a request signed with the wrong secret is refused with 403 InvalidSignatureException', async () => {
    const wrong = new BedrockRuntimeClient({
      endpoint: emulator.baseUrl,
      region: 'us-east-1',
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
      credentials: { accessKeyId: TEST_AWS_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    try {
      await assert.rejects(
        wrong.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] })),
        (err: Error & { $metadata?: { httpStatusCode?: number } }) =>
          err.name === 'InvalidSignatureException' && err.$metadata?.httpStatusCode === 403,
      );
    } finally {
      wrong.destroy();
    }
  });
});
