import assert from 'node:assert/strict';
import type { OpenAIProfile } from '../../../src/providers/openai/openai-profiles.ts';
import { PDF_BASE64, PNG_BASE64, WAV_BASE64, WEATHER_SCHEMA } from '../conformance-fixtures.ts';
import type { RequestCheck } from '../conformance-types.ts';

/** What an OpenAI-compatible vendor must receive for each case, read from its profile. */
export function checkOpenAIRequest(profile: OpenAIProfile, upstreamModel: string, { caseId, request, received }: RequestCheck): void {
  const body = received.body;
  assert.equal(body.model, upstreamModel);
  const rules = profile.rules;
  switch (caseId) {
    case 'plain-text':
      assert.deepEqual(body.messages, [{ role: 'user', content: 'Say hello.' }]);
      assert.equal('stream' in body, false);
      return;
    case 'streaming':
      assert.equal(body.stream, true);
      if (profile.streamOptions) assert.deepEqual(body.stream_options, { include_usage: true });
      else assert.equal('stream_options' in body, false);
      return;
    case 'tool-call-round-trip': {
      const call = request.messages[1]!;
      assert.ok(call.role === 'assistant' && call.content[0]!.type === 'tool-call');
      const sent = body.messages[1];
      assert.equal(sent.role, 'assistant');
      assert.equal(sent.tool_calls.length, 1);
      assert.equal(sent.tool_calls[0].function.name, 'get_weather');
      assert.equal(sent.tool_calls[0].function.arguments, call.content[0]!.arguments);
      assert.ok(sent.tool_calls[0].id.length <= 40, "ids fit OpenAI's limit");
      assert.deepEqual(body.messages[2], { role: 'tool', tool_call_id: sent.tool_calls[0].id, content: '{"temp_c":21,"sky":"sunny"}' });
      assert.deepEqual(
        body.tools.map((t: any) => t.function.name),
        ['get_weather'],
      );
      return;
    }
    case 'parallel-tool-calls':
      assert.deepEqual(
        body.tools.map((t: any) => t.type === 'function' && t.function.name),
        ['get_weather', 'get_time'],
      );
      return;
    case 'structured-output':
      // The schema itself must reach the vendor: the answer fits it only if the vendor enforces it.
      assert.deepEqual(body.response_format, {
        type: 'json_schema',
        json_schema: { name: 'weather', schema: WEATHER_SCHEMA, strict: true },
      });
      return;
    case 'image-input':
      assert.deepEqual(body.messages[0].content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } });
      return;
    case 'pdf-input':
      assert.deepEqual(body.messages[0].content[1], {
        type: 'file',
        file: { file_data: `data:application/pdf;base64,${PDF_BASE64}`, filename: 'report.pdf' },
      });
      return;
    case 'audio-input':
      assert.deepEqual(body.messages[0].content[1], { type: 'input_audio', input_audio: { data: WAV_BASE64, format: 'wav' } });
      return;
    case 'reasoning': {
      const effort = request.reasoning!.effort!;
      const rule = rules.reasoning;
      if (rule.action === 'drop') {
        assert.equal('reasoning_effort' in body || 'reasoning' in body, false, 'no reasoning field for a vendor that takes none');
      } else if (rule.field === 'reasoning') {
        assert.deepEqual(body.reasoning, { effort });
      } else {
        const mapped = profile.effortValues?.[effort] ?? effort;
        assert.equal(body[rule.field ?? 'reasoning'], mapped);
      }
      if (profile.includeReasoningField !== undefined) assert.equal(body[profile.includeReasoningField], true);
      return;
    }
    case 'stop-sequences':
      assert.deepEqual(body[rules.stop.field ?? 'stop'], ['simulator']);
      return;
    case 'prompt-caching':
      assert.equal(body.messages[0].role, 'system');
      assert.equal(typeof body.messages[0].content, 'string', 'cache hints are not sent in the message');
      if (rules.prompt_cache_key.action === 'drop') assert.equal('prompt_cache_key' in body, false);
      else assert.equal(body[rules.prompt_cache_key.field ?? 'prompt_cache_key'], 'conversation-42');
      return;
    default:
      // A case that checks its request must have its check here, not pass unchecked.
      assert.fail(`no request check for ${caseId}`);
  }
}
