import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRoutingRig, user, type RoutingRig } from './routing-fixture.ts';

// GET /api/v1/models/{author}/{slug}/endpoints: what the catalog says of each endpoint and
// how it has been doing, in OpenRouter's shape.

describe('routing: the endpoints listing', () => {
  let rig: RoutingRig;
  before(async () => {
    rig = await startRoutingRig();
  });
  after(async () => {
    await rig.close();
  });

  async function listing(path = '/api/v1/models/acme/multi/endpoints', auth = rig.auth) {
    const res = await fetch(`${rig.gw.origin}${path}`, { headers: auth });
    return { status: res.status, json: (await res.json()) as any };
  }

  test('needs a key (unlike /v1/models, public by default)', async () => {
    const res = await listing(undefined, {});
    assert.equal(res.status, 401);
  });

  test('an unknown model is a 404', async () => {
    const res = await listing('/api/v1/models/acme/nope/endpoints');
    assert.equal(res.status, 404);
    assert.equal(res.json.error.type, 'not_found_error');
  });

  test('lists every endpoint with its catalog fields; no figures before any traffic', async () => {
    const { status, json } = await listing('/v1/models/acme/multi/endpoints');
    assert.equal(status, 200);
    const data = json.data;
    assert.equal(data.id, 'acme/multi');
    assert.equal(data.name, 'Multi');
    assert.equal(typeof data.created, 'number');
    assert.equal(data.architecture.modality, 'text->text');
    assert.deepEqual(
      data.endpoints.map((e: any) => e.endpoint_id),
      ['cheap/multi-cheap', 'mid/multi-mid', 'dear/multi-dear'],
    );
    const dear = data.endpoints[2];
    assert.equal(dear.name, 'dear: Multi');
    assert.equal(dear.provider_name, 'dear');
    assert.equal(dear.tag, 'dear');
    assert.equal(dear.model_name, 'Multi');
    assert.equal(dear.context_length, 32000);
    assert.equal(dear.quantization, 'fp16');
    assert.deepEqual(dear.pricing, { prompt: '0.000004', completion: '0.000004', request: '0.001' });
    assert.equal(dear.data_collection, 'deny');
    assert.equal(dear.zdr, false);
    assert.ok(dear.supported_parameters.includes('tools'));
    assert.deepEqual(data.endpoints[0].supported_parameters, ['max_tokens', 'stop', 'temperature']);
    assert.equal(dear.status, 0);
    assert.equal(dear.uptime_last_30m, null);
    assert.equal(dear.latency_last_30m, null);
    assert.equal(dear.throughput_last_30m, null);
  });

  test('after traffic: uptime, latency and throughput percentiles, and status', async () => {
    for (let i = 0; i < 4; i++) {
      rig.emus.mid.enqueue({
        text: 'one two three four five six',
        chunks: 6,
        chunkDelayMs: 10,
        usage: { prompt_tokens: 5, completion_tokens: 6 },
      });
      const res = await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { only: ['mid'] }, stream: true });
      assert.equal(res.status, 200);
    }
    for (let i = 0; i < 3; i++) {
      rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
      await rig.chat({ model: 'acme/multi', messages: user('hi'), provider: { order: ['cheap', 'mid'] } });
    }
    const endpoints = (await listing()).json.data.endpoints as any[];
    const [cheap, mid] = endpoints;
    assert.equal(mid.status, 0);
    assert.equal(mid.uptime_last_30m, 100);
    assert.equal(mid.uptime_last_5m, 100);
    // Streamed at 10 ms a chunk: the first token comes after the role chunk, the six come over ~50 ms.
    assert.ok(mid.latency_last_30m.p50 >= 5, JSON.stringify(mid.latency_last_30m));
    assert.ok(mid.latency_last_30m.p99 >= mid.latency_last_30m.p50);
    // Six tokens 10 ms apart can stream no faster than about 120 a second; a busy machine
    // only makes them slower, so there is no lower bound but zero.
    assert.ok(mid.throughput_last_30m.p50 > 0 && mid.throughput_last_30m.p50 < 1000, JSON.stringify(mid.throughput_last_30m));
    assert.ok(mid.throughput_last_30m.p99 <= mid.throughput_last_30m.p50, 'p99 is toward the slowest');
    assert.equal(cheap.uptime_last_30m, 0);
    assert.equal(cheap.status, -1, 'three failures in 30 seconds: demoted');
  });

  test('an open circuit shows as status -2; with every circuit open a request gets 503 and Retry-After', async () => {
    const breakers = rig.gw.services.breakers;
    for (const id of ['cheap/small-cheap', 'mid/small-mid']) for (let i = 0; i < 5; i++) breakers.onFailure(id);
    const endpoints = (await listing('/api/v1/models/acme/small/endpoints')).json.data.endpoints as any[];
    assert.deepEqual(
      endpoints.map((e) => e.status),
      [-2, -2],
    );
    const res = await rig.chat({ model: 'acme/small', messages: user('hi') });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '30');
    assert.deepEqual(
      res.json.error.metadata.excluded.map((e: any) => e.reason),
      ['circuit open', 'circuit open'],
    );
  });
});
