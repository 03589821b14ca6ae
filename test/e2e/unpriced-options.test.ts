import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Options that cost extra upstream are not forwarded unpriced unless the operator enabled
// them for the provider (`unpriced_options`); otherwise a 400 names the option.

function yaml(openai: string, openrouter: string, unpriced: { openai?: string; openrouter?: string } = {}): string {
  return `sim: false
providers:
  - id: oa
    kind: openai
    profile: openai
    base_url: "${openai}"${unpriced.openai === undefined ? '' : `\n    unpriced_options: ${unpriced.openai}`}
  - id: or
    kind: openai
    profile: openrouter
    base_url: "${openrouter}"${unpriced.openrouter === undefined ? '' : `\n    unpriced_options: ${unpriced.openrouter}`}
models:
  - id: acme/oa
    name: OA
    context_length: 32000
    endpoints:
      - { provider: oa, model: oa-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
  - id: acme/or
    name: OR
    context_length: 32000
    endpoints:
      - { provider: or, model: or-1, pricing: { prompt: "0.000001", completion: "0.000002" } }
`;
}

describe('options that cost extra upstream', () => {
  let oa: OpenAIChatEmulator;
  let or: OpenAIChatEmulator;
  before(async () => {
    [oa, or] = await Promise.all([startOpenAIChatEmulator(), startOpenAIChatEmulator()]);
  });
  after(async () => {
    await Promise.all([oa.close(), or.close()]);
  });

  async function withGateway(
    unpriced: { openai?: string; openrouter?: string },
    run: (gw: TestGateway, chat: (body: Record<string, unknown>) => ReturnType<typeof postJson>) => Promise<void>,
  ): Promise<void> {
    oa.reset();
    or.reset();
    const gw = await startTestGateway({ yaml: yaml(oa.baseUrl, or.baseUrl, unpriced) });
    try {
      await run(gw, (body) =>
        postJson(
          `${gw.baseUrl}/chat/completions`,
          { messages: [{ role: 'user', content: 'hi' }], ...body },
          { authorization: `Bearer ${gw.key}` },
        ),
      );
    } finally {
      await gw.close();
    }
  }

  test('are refused with a 400 naming the option when the provider has not enabled them, and nothing reaches the upstream', async () => {
    await withGateway({}, async (gw, chat) => {
      for (const [model, body, param] of [
        ['acme/oa', { service_tier: 'priority' }, 'service_tier'],
        ['acme/oa', { service_tier: 'flex' }, 'service_tier'],
        ['acme/oa', { web_search_options: { search_context_size: 'high' } }, 'web_search_options'],
        ['acme/or', { plugins: [{ id: 'web', max_results: 5 }] }, 'plugins'],
      ] as const) {
        const res = await chat({ model, ...body });
        assert.equal(res.status, 400, `${param}: ${res.text}`);
        assert.equal(res.json.error.code, 'option_not_enabled');
        assert.equal(res.json.error.param, param);
        assert.match(res.json.error.message, new RegExp(`"${param}"`));
      }
      assert.equal(oa.requests.length + or.requests.length, 0, 'no upstream call');
      await gw.flush();
      assert.equal((await gw.services.stores.accounts.getAccount(gw.accountId))!.balanceNanos, 100_000_000_000n, 'nothing charged');
    });
  });

  test('that cost nothing extra pass as before: service_tier auto, other plugins', async () => {
    await withGateway({}, async (_gw, chat) => {
      assert.equal((await chat({ model: 'acme/oa', service_tier: 'auto' })).status, 200);
      assert.equal(oa.requests[0]!.body.service_tier, 'auto');
      assert.equal((await chat({ model: 'acme/or', plugins: [{ id: 'response-healing' }] })).status, 200);
      assert.deepEqual(or.requests[0]!.body.plugins, [{ id: 'response-healing' }]);
    });
  });

  test('are forwarded to a provider whose operator enabled them', async () => {
    await withGateway({ openai: '[service_tier, web_search_options]', openrouter: '[plugins]' }, async (_gw, chat) => {
      assert.equal((await chat({ model: 'acme/oa', service_tier: 'priority', web_search_options: {} })).status, 200);
      assert.equal(oa.requests[0]!.body.service_tier, 'priority');
      assert.deepEqual(oa.requests[0]!.body.web_search_options, {});
      assert.equal((await chat({ model: 'acme/or', plugins: [{ id: 'web' }] })).status, 200);
      assert.deepEqual(or.requests[0]!.body.plugins, [{ id: 'web' }]);
    });
  });
});
