// The open-streams phase of the bench leaves no work behind for the next phase: once its
// clients have gone, the bench upstream (bench/upstream-server.ts) ends the streams it still
// holds, so a switchyard reading on for their usage (billing) gets it and settles them then,
// rather than aborting all of them at the end of its disconnect grace (10 s) and charging
// each by estimate in the middle of the 1-connection latency phase (the 158-302 ms
// event-loop stalls of the runs before). Through real HTTP.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import { killAll, startChild, stopChild, type Child } from '../../bench/lib/processes.ts';
import { chatBody, GATEWAY_MODEL, HOLD_MARKER } from '../../bench/lib/scenarios.ts';
import { releaseHeldStreams, startSwitchyard } from '../../bench/lib/targets.ts';
import { PATH } from '../../bench/lib/throughput.ts';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));
let upstream: Child<{ port: number }>;
let switchyard: Awaited<ReturnType<typeof startSwitchyard>>;
let upstreamOrigin: string;

before(async () => {
  upstream = await startChild<{ port: number }>('upstream', join(BENCH, 'upstream-server.ts'), []);
  upstreamOrigin = `http://127.0.0.1:${upstream.info.port}`;
  switchyard = await startSwitchyard(upstreamOrigin);
});

after(async () => {
  if (switchyard as typeof switchyard | undefined) await stopChild(switchyard.child);
  if (upstream as typeof upstream | undefined) await stopChild(upstream);
  killAll();
});

test('held streams a client left are ended by the upstream on request, and switchyard settles them with their usage', async () => {
  const t = switchyard.target;
  const client = new Client(t.origin);
  const res = await client.request({ path: PATH, method: 'POST', headers: t.headers, body: chatBody(GATEWAY_MODEL, true, HOLD_MARKER) });
  assert.equal(res.statusCode, 200);
  const id = res.headers['x-generation-id'] as string;
  // The first chunk has come: the stream is held upstream. The client leaves.
  await new Promise<void>((resolve) => res.body.once('data', () => resolve()));
  res.body.destroy();
  await client.destroy();
  assert.equal(await releaseHeldStreams(upstreamOrigin), 1);
  // Settled as soon as the gateway has read the upstream's tail: waits for the record, not a clock.
  const lookup = new Client(t.origin);
  try {
    for (;;) {
      const r = await lookup.request({ path: `/api/v1/generation?id=${encodeURIComponent(id)}`, method: 'GET', headers: t.headers });
      const json = (await r.body.json()) as any;
      if (r.statusCode === 200) {
        assert.equal(json.data.cancelled, true, JSON.stringify(json.data));
        assert.ok(Number(json.data.tokens_prompt) > 0 && Number(json.data.total_cost) > 0, JSON.stringify(json.data));
        break;
      }
      assert.equal(r.statusCode, 404, JSON.stringify(json));
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await lookup.close();
  }
  assert.equal(await releaseHeldStreams(upstreamOrigin), 0, 'nothing is held any more');
});
