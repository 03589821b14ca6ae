import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Two catalog models on one upstream model (an operator's alias, re-priced): both are
// served, each at its own price, and they share the endpoint's health and circuit.

const ALIAS = `  - id: acme/mock-premium
    name: Mock Premium
    context_length: 32000
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.00001", completion: "0.00002" }
`;

describe('two models sharing one upstream model', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let auth: Record<string, string>;
  const warnings: string[] = [];
  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl, ALIAS), env: { LOCAL_KEY: 'k' }, log: (m) => warnings.push(m) });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('both are listed, each with its own price, and no endpoint is dropped', async () => {
    const { data } = (await (await fetch(`${gw.baseUrl}/models`)).json()) as { data: Array<{ id: string; pricing: { prompt: string } }> };
    const byId = new Map(data.map((m) => [m.id, m]));
    assert.equal(byId.get('acme/mock-1')?.pricing.prompt, '0.000001');
    assert.equal(byId.get('acme/mock-premium')?.pricing.prompt, '0.00001');
    assert.deepEqual(
      gw.services.inForce.catalog.warnings.filter((w) => w.includes('local/mock-model')),
      [],
    );
  });

  test('each is charged its own price for the same upstream call', async () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    emu.enqueue({ text: 'cheap', usage }, { text: 'dear', usage });
    const cheap = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-1', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    const dear = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-premium', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(cheap.status, 200);
    assert.equal(dear.status, 200);
    const sent = emu.requests.slice(-2).map((r) => r.body.model);
    assert.deepEqual(sent, ['mock-model', 'mock-model']);
    assert.equal(cheap.json.usage.cost, 0.00002); // 10 × 1e-6 + 5 × 2e-6
    assert.equal(dear.json.usage.cost, 0.0002); // 10 × 1e-5 + 5 × 2e-5
  });

  test("traffic to one shows in the other's endpoint health, and a circuit opened through one closes the other", async () => {
    const listing = async (model: string) =>
      ((await (await fetch(`${gw.baseUrl}/models/${model}/endpoints`, { headers: auth })).json()) as { data: { endpoints: any[] } }).data
        .endpoints;
    const [premium] = await listing('acme/mock-premium');
    assert.equal(premium.endpoint_id, 'local/mock-model');
    assert.equal(premium.uptime_last_30m, 100, 'the requests of both models count for the one upstream');

    // Five failures through acme/mock-1 alone open the circuit (an upstream 401: a failure
    // of the endpoint that is not asked again, so each request is one attempt).
    for (let i = 0; i < 5; i++) {
      emu.enqueue({ fault: 'status', status: 401 });
      const failed = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'acme/mock-1', messages: [{ role: 'user', content: 'hi' }] },
        auth,
      );
      assert.notEqual(failed.status, 200);
    }
    assert.equal((await listing('acme/mock-1'))[0].status, -2);
    const before = emu.requests.length;
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/mock-premium', messages: [{ role: 'user', content: 'hi' }] },
      auth,
    );
    assert.equal(res.status, 503);
    assert.equal(emu.requests.length, before, 'nothing sent upstream');
    assert.equal((await listing('acme/mock-premium'))[0].status, -2);
  });
});
