import assert from 'node:assert/strict';
import { anthropicAdapter } from '../../../src/providers/anthropic/anthropic-adapter.ts';
import { PDF_BASE64, PNG_BASE64, WEATHER_SCHEMA } from '../conformance-fixtures.ts';
import type { ConformanceSubject, RequestCheck } from '../conformance-types.ts';
import { startAnthropicUpstream } from '../upstreams/anthropic-upstream.ts';

// The anthropic adapter against the Anthropic Messages emulator (which refuses what the
// real API refuses: unpaired tool results, bad thinking budgets, bad tool ids).

const KEY = 'sk-ant-conformance';

function checkAnthropicRequest(check: RequestCheck): void {
  assert.equal(check.received.path.split('?')[0], '/v1/messages');
  assert.equal(check.received.headers['x-api-key'], KEY);
  checkAnthropicBody(check);
}

/** What a Messages body must hold for each case, wherever it was sent (Vertex AI too). */
export function checkAnthropicBody({ caseId, received }: RequestCheck): void {
  const body = received.body;
  const userBlocks = body.messages[0].content;
  switch (caseId) {
    case 'plain-text':
      assert.equal(body.model, 'claude-sonnet-4-5');
      assert.ok(Number.isInteger(body.max_tokens));
      return;
    case 'streaming':
      assert.equal(body.stream, true);
      return;
    case 'tool-call-round-trip': {
      const call = body.messages[1].content[0];
      assert.equal(call.type, 'tool_use');
      assert.equal(call.name, 'get_weather');
      assert.deepEqual(call.input, { city: 'Paris' });
      assert.equal(body.messages[2].content[0].type, 'tool_result');
      assert.equal(body.messages[2].content[0].tool_use_id, call.id);
      return;
    }
    case 'parallel-tool-calls':
      assert.deepEqual(
        body.tools.map((t: any) => t.name),
        ['get_weather', 'get_time'],
      );
      return;
    case 'structured-output':
      assert.deepEqual(body.output_config, { format: { type: 'json_schema', schema: WEATHER_SCHEMA } });
      return;
    case 'image-input':
      assert.deepEqual(userBlocks[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } });
      return;
    case 'pdf-input':
      assert.equal(userBlocks[1].type, 'document');
      assert.deepEqual(userBlocks[1].source, { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 });
      return;
    case 'reasoning':
      assert.equal(body.thinking.type, 'enabled');
      assert.ok(body.thinking.budget_tokens >= 1024);
      return;
    case 'stop-sequences':
      assert.deepEqual(body.stop_sequences, ['simulator']);
      return;
    case 'prompt-caching':
      assert.deepEqual(body.system[0].cache_control, { type: 'ephemeral' });
      return;
    default:
      // A case that checks its request must have its check here, not pass unchecked.
      assert.fail(`no request check for ${caseId}`);
  }
}

export const ANTHROPIC_SUBJECT: ConformanceSubject = {
  name: 'anthropic',
  provider: 'anthropic',
  adapter: anthropicAdapter,
  config: { id: 'anthropic', kind: 'anthropic', name: 'Anthropic', timeoutMs: 10_000, cacheFamily: 'cache_control', apiKey: KEY },
  upstreamModel: 'claude-sonnet-4-5',
  startUpstream: () => startAnthropicUpstream(),
  checkRequest: checkAnthropicRequest,
  reasoningText: true,
  providerParameters: [],
  skips: {
    'audio-input': 'Anthropic models take no audio',
  },
};
