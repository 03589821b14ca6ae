import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OtlpReceiver } from '../support/otlp-receiver.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Metric labels and span names (and the span attributes span metrics turn into labels)
// never carry what a client chose: an unknown model name becomes `unknown`; a title, a
// referer, a user id, a `:variant`-looking suffix go nowhere near them. Otherwise each
// request could mint a new series, or write into the operator's dashboards.

const EVIL = 'evil-5a1c9e7b';

describe('client-chosen strings stay out of metric labels and spans', () => {
  let gw: TestGateway;
  const receiver = new OtlpReceiver();
  before(async () => {
    await receiver.start();
    gw = await startTestGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  test(`unknown models, titles, referers and user ids: no "${EVIL}" in /metrics or in any span`, async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const hostile = { ...auth, 'x-title': `${EVIL}-title`, 'http-referer': `https://${EVIL}.example/`, 'x-switchyard-cache-ttl': '1' };
    const asked = [
      postJson(`${gw.baseUrl}/chat/completions`, { model: `${EVIL}-model`, messages: [{ role: 'user', content: 'hi' }] }, hostile),
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: `acme/${EVIL}`, stream: true, messages: [{ role: 'user', content: 'hi' }] },
        hostile,
      ),
      postJson(`${gw.baseUrl}/messages`, { model: `${EVIL}-claude`, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, hostile),
      postJson(`${gw.baseUrl}/responses`, { model: `switchyard/sim-fast:${EVIL}`, input: 'hi' }, hostile),
      postJson(
        `${gw.baseUrl}/chat/completions`,
        { model: 'switchyard/sim-fast', user: `${EVIL}-user`, messages: [{ role: 'user', content: 'hi' }] },
        hostile,
      ),
      postJson(`${gw.baseUrl}/responses`, { model: 'switchyard/sim-fast', user: `${EVIL}-user`, input: 'hi' }, hostile),
      // Gemini's API names the model in the path (an unknown one is its 404).
      postJson(
        `${gw.origin}/v1beta/models/acme/${EVIL}:streamGenerateContent?alt=sse`,
        { contents: [{ parts: [{ text: 'hi' }] }] },
        hostile,
      ),
    ];
    const answers = await Promise.all(asked);
    assert.deepEqual(
      answers.map((a) => a.status),
      [400, 400, 400, 400, 200, 200, 404],
      answers.map((a) => a.text).join('\n'),
    );

    const metrics = await (await fetch(`${gw.origin}/metrics`)).text();
    assert.match(metrics, /switchyard_requests_total\{[^}]*model="unknown"/, 'the unknown models are counted, as unknown');
    assert.match(metrics, /switchyard_requests_total\{[^}]*model="switchyard\/sim-fast"/);
    assert.equal(
      metrics.includes(EVIL),
      false,
      metrics
        .split('\n')
        .filter((l) => l.includes(EVIL))
        .join('\n'),
    );

    await gw.services.telemetry.tracing!.flush();
    await receiver.whenSpans(7);
    const servers = receiver.spans.filter((s) => s.kind === 2);
    assert.equal(servers.length, 7);
    assert.deepEqual(servers.map((s) => s.name).sort(), [
      'chat switchyard/sim-fast',
      'chat switchyard/sim-fast',
      'chat unknown',
      'chat unknown',
      'chat unknown',
      'chat unknown',
      'chat unknown',
    ]);
    const text = JSON.stringify(receiver.spans);
    assert.equal(text.includes(EVIL), false, text);
  });
});
