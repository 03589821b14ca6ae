import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { readBuildInfo } from '../../src/config/build-info.ts';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// GET /health and GET /ready: unauthenticated, cheap, and /ready names what fails.

async function ready(gw: TestGateway): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.origin}/ready`);
  return { status: res.status, body: await res.json() };
}

/** /ready, asked again (a bounded number of times) until `until` holds: the gateway notices writes recovering on its own timers. */
async function readyUntil(gw: TestGateway, until: (r: { status: number; body: any }) => boolean): Promise<{ status: number; body: any }> {
  let last = await ready(gw);
  for (let i = 0; i < 100 && !until(last); i++) {
    await delay(50);
    last = await ready(gw);
  }
  return last;
}

describe('probes', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  // Both connections refuse writes or accept them: the main thread's and the writer thread's (settlements, lease).
  const writes = async (on: boolean): Promise<void> => {
    const sql = `PRAGMA query_only = ${on ? 'OFF' : 'ON'}`;
    gw.db.exec(sql);
    await gw.services.writer!.exec(sql);
  };
  after(async () => {
    await writes(true);
    await gw.close();
  });

  test('GET /health answers 200 without a key', async () => {
    const res = await fetch(`${gw.origin}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  test('GET /ready answers 200 without a key, with every check, the version, build and config generation', async () => {
    const r = await ready(gw);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'ready');
    assert.deepEqual(r.body.failing, []);
    assert.deepEqual(Object.keys(r.body.checks).sort(), ['catalog', 'database', 'draining', 'redis']);
    assert.equal(r.body.checks.redis.detail, 'not_configured');
    const info = readBuildInfo(process.env);
    assert.equal(r.body.version, info.version);
    assert.equal(r.body.build, info.build);
    assert.equal(r.body.config.generation, 1);
    assert.equal(r.body.config.last_reload, null);
  });

  test('GET /ready answers 503 naming the database while it refuses writes, and 200 again once it accepts them', async () => {
    await writes(false);
    const refused = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'hi' }] },
      {
        authorization: `Bearer ${gw.key}`,
      },
    );
    assert.equal(refused.status, 503, refused.text);
    const down = await ready(gw);
    assert.equal(down.status, 503);
    assert.equal(down.body.status, 'not_ready');
    assert.deepEqual(down.body.failing, ['database']);
    assert.equal(down.body.checks.database.ok, false);
    await writes(true);
    const up = await readyUntil(gw, (r) => r.status === 200);
    assert.equal(up.status, 200, JSON.stringify(up.body));
  });

  test('GET /ready answers 503 naming draining once a graceful stop began; /health still answers 200', async () => {
    gw.services.inFlight.startDraining();
    const r = await ready(gw);
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failing, ['draining']);
    assert.equal((await fetch(`${gw.origin}/health`)).status, 200);
  });
});
