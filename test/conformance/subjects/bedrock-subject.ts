import assert from 'node:assert/strict';
import { bedrockAdapter } from '../../../src/providers/bedrock/bedrock-adapter.ts';
import { PDF_BASE64, PNG_BASE64, WEATHER_SCHEMA } from '../conformance-fixtures.ts';
import type { ConformanceSubject, RequestCheck } from '../conformance-types.ts';
import { startBedrockUpstream } from '../upstreams/bedrock-upstream.ts';

// The bedrock adapter (Converse, SigV4-signed) against the Bedrock emulator, which checks
// every signature and refuses what the real API refuses (a tool history without a
// toolConfig, a thinking budget not under maxTokens, a `model` in the body).

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const PATH = `/model/${encodeURIComponent(MODEL)}`;

function checkBedrockRequest({ caseId, received }: RequestCheck): void {
  const body = received.body;
  assert.match(String(received.headers.authorization), /^AWS4-HMAC-SHA256 Credential=\w+\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  assert.equal('model' in body, false);
  const userBlocks = body.messages[0].content;
  switch (caseId) {
    case 'plain-text':
      assert.equal(received.path, `${PATH}/converse`);
      assert.ok(Number.isInteger(body.inferenceConfig.maxTokens));
      return;
    case 'streaming':
      assert.equal(received.path, `${PATH}/converse-stream`);
      return;
    case 'tool-call-round-trip': {
      const call = body.messages[1].content[0].toolUse;
      assert.equal(call.name, 'get_weather');
      assert.deepEqual(call.input, { city: 'Paris' });
      assert.equal(body.messages[2].content[0].toolResult.toolUseId, call.toolUseId);
      assert.deepEqual(body.messages[2].content[0].toolResult.content, [{ text: '{"temp_c":21,"sky":"sunny"}' }]);
      return;
    }
    case 'parallel-tool-calls':
      assert.deepEqual(
        body.toolConfig.tools.map((t: any) => t.toolSpec.name),
        ['get_weather', 'get_time'],
      );
      return;
    case 'structured-output':
      assert.deepEqual(JSON.parse(body.outputConfig.textFormat.structure.jsonSchema.schema), WEATHER_SCHEMA);
      assert.equal(body.outputConfig.textFormat.type, 'json_schema');
      return;
    case 'image-input':
      assert.deepEqual(userBlocks[1], { image: { format: 'png', source: { bytes: PNG_BASE64 } } });
      return;
    case 'pdf-input':
      assert.deepEqual(userBlocks[1], { document: { format: 'pdf', name: 'report', source: { bytes: PDF_BASE64 } } });
      return;
    case 'reasoning':
      assert.equal(body.additionalModelRequestFields.thinking.type, 'enabled');
      assert.ok(body.additionalModelRequestFields.thinking.budget_tokens >= 1024);
      assert.ok(body.inferenceConfig.maxTokens > body.additionalModelRequestFields.thinking.budget_tokens);
      return;
    case 'stop-sequences':
      assert.deepEqual(body.inferenceConfig.stopSequences, ['simulator']);
      return;
    case 'prompt-caching':
      assert.deepEqual(body.system[1], { cachePoint: { type: 'default' } });
      return;
    default:
      assert.fail(`no request check for ${caseId}`);
  }
}

export const BEDROCK_SUBJECT: ConformanceSubject = {
  name: 'bedrock',
  provider: 'bedrock',
  adapter: bedrockAdapter,
  config: { id: 'bedrock', kind: 'bedrock', name: 'AWS Bedrock', timeoutMs: 10_000, cacheFamily: 'cache_control', region: 'us-east-1' },
  upstreamModel: MODEL,
  startUpstream: startBedrockUpstream,
  checkRequest: checkBedrockRequest,
  reasoningText: true,
  providerParameters: [],
  reportsReasoningTokens: false,
  skips: {
    'audio-input': 'the Converse API takes no audio input',
    'error-rate-limited': "Bedrock's ThrottlingException gives no retry delay (no Retry-After); it is still a retryable provider error",
  },
};
