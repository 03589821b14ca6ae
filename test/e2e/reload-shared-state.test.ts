import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { loadConfig } from '../../src/config/load-config.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// What a reload keeps: routing health of the endpoints that remain, and what it swaps: the
// catalog every route reads (listings and endpoint pages are rebuilt for the new one).

const yaml = (promptUsd: string) => `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
models:
  - id: acme/paid-sim
    context_length: 32000
    endpoints:
      - provider: sim
        model: sim-fast
        pricing: { prompt: "${promptUsd}", completion: "0.000002" }
`;

describe('a reload and the state that outlives it', () => {
  let gw: TestGateway;
  const endpoints = async (): Promise<any[]> => {
    const res = await fetch(`${gw.baseUrl}/models/acme/paid-sim/endpoints`, { headers: { authorization: `Bearer ${gw.key}` } });
    return ((await res.json()) as any).data.endpoints;
  };
  before(async () => {
    gw = await startTestGateway({ yaml: yaml('0.000001') });
  });
  after(() => gw.close());

  test('endpoint health carries over a reload while the endpoint page shows the new price', async () => {
    const chat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'acme/paid-sim', messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(chat.status, 200, chat.text);
    // Health figures may lag a request by a fraction of a second.
    let before = await endpoints();
    for (let i = 0; i < 100 && before[0].uptime_last_5m === null; i++) {
      await delay(20);
      before = await endpoints();
    }
    assert.equal(before[0].uptime_last_5m, 100);
    assert.equal(before[0].pricing.prompt, '0.000001');

    const path = join(gw.dir, 'switchyard.yaml');
    writeFileSync(path, yaml('0.000003'));
    const result = gw.services.inForce.reload(() => {
      const c = loadConfig({ path, env: { SWITCHYARD_DATA_DIR: gw.dir } });
      c.server = { ...c.server, host: '127.0.0.1', port: 0 };
      return c;
    });
    assert.equal(result.ok, true, JSON.stringify(result));
    const afterReload = await endpoints();
    assert.equal(afterReload[0].pricing.prompt, '0.000003');
    assert.equal(afterReload[0].uptime_last_5m, 100, 'the health of an endpoint that remains is kept');
  });
});
