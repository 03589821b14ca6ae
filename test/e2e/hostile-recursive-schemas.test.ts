import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startGeminiEmulator, type GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// A small schema whose definition refers to itself several times expands exponentially
// when its $refs are inlined (10 references, 8 levels: 10^8 nodes). The Gemini schema
// conversion and the sim's value generator inline $refs; both stop at a node budget,
// so such a request is answered and the server stays responsive (another request
// completes). Without the budget the request holds the event loop: the test's timeout
// is its failure.

const FAILS_BY = { timeout: 60_000 };

function recursiveSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 10; i++) properties[`p${i}`] = { $ref: '#/$defs/node' };
  return {
    type: 'object',
    $defs: { node: { type: 'object', properties, required: Object.keys(properties) } },
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
  };
}

const tools = [{ type: 'function', function: { name: 'walk', description: 'walk a tree', parameters: recursiveSchema() } }];

describe('recursive $ref schemas do not expand without bound', () => {
  let emu: GeminiEmulator;
  let gw: TestGateway;
  before(async () => {
    emu = await startGeminiEmulator();
    gw = await startTestGateway({
      yaml: `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: google
    base_url: ${emu.baseUrl}
    api_key: gm-test
models:
  - id: google/gemini-test
    context_length: 32768
    capabilities: [text, streaming, tool_calling, json_mode]
    endpoints:
      - provider: google
        model: gemini-test
        pricing: { prompt: "0.0000003", completion: "0.0000025" }
`,
    });
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('the sim answers a forced call of such a tool, and another request completes meanwhile', FAILS_BY, async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const [res, other] = await Promise.all([
      postJson(
        `${gw.baseUrl}/chat/completions`,
        {
          model: 'switchyard/sim-fast',
          tools,
          tool_choice: { type: 'function', function: { name: 'walk' } },
          messages: [{ role: 'user', content: 'walk it' }],
        },
        auth,
      ),
      postJson(`${gw.baseUrl}/chat/completions`, { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] }, auth),
    ]);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const call = res.json.choices[0].message.tool_calls[0];
    assert.equal(call.function.name, 'walk');
    // The sim cuts long output at its token limit: the arguments start as the schema says.
    assert.match(call.function.arguments, /^\{"root":\{"p0":/);
    assert.equal(other.status, 200);
  });

  test('the Gemini conversion sends such a schema with its expansion bounded', FAILS_BY, async () => {
    emu.enqueue({ text: 'ok' });
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'google/gemini-test',
        tools,
        messages: [{ role: 'user', content: 'walk it' }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 200, res.text.slice(0, 300));
    const sent = JSON.stringify(emu.requests[0]!.body.tools);
    assert.ok(sent.includes('"walk"'));
    assert.ok(sent.length < 2_000_000, `the converted schema stays small (${sent.length} bytes)`);
  });
});
