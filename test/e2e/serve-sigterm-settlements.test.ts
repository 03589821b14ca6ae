import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { killLeft, listening, serve, serveEnv, starterKey, tempDir } from '../support/serve-process.ts';
import { readSse } from '../support/sse-reader.ts';

// SIGTERM while many answers are being written: past the drain timeout they are cut, each
// is settled (charged what it used) in the last moments of the process, and the shutdown
// writes every one of those settlements (the writer thread is flushed, then ended, then
// the serve lease released) before the process exits.

const STREAMS = 12;

test('SIGTERM with settlements in flight: every one is written before the process exits, then the lease is released', async () => {
  const dir = tempDir('switchyard-sigterm-settle');
  const config = join(dir, 'switchyard.yaml');
  // ~100 chunks 40 ms apart per stream, a 150 ms drain: every stream is still running when it is cut.
  writeFileSync(
    config,
    `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 40 }
models:
  - id: acme/paid-sim
    context_length: 32000
    endpoints:
      - provider: sim
        model: sim-fast
        pricing: { prompt: "0.000001", completion: "0.000002" }
timeouts: { drain_ms: 150 }
`,
  );
  const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_CONFIG: config }), ['--port', '0']);
  try {
    const origin = await listening(s);
    const key = await starterKey(s);
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        const res = await fetch(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'acme/paid-sim',
            stream: true,
            max_tokens: 400,
            messages: [{ role: 'user', content: 'Tell me a long story.' }],
          }),
        });
        assert.equal(res.status, 200);
        const stream = readSse(res.body!);
        await stream.waitFor(/"content":"[^"]+"/);
        return { id: res.headers.get('x-generation-id')!, stream };
      }),
    );
    s.child.kill('SIGTERM');
    for (const { stream } of streams) assert.doesNotMatch(await stream.done, /\[DONE\]/, 'cut by the drain timeout');
    assert.deepEqual(await s.exited, { code: 0, signal: null }, s.stderr);
    await s.closed;
    assert.match(s.stderr, new RegExp(`cancelling ${STREAMS} request\\(s\\) still in flight`));
    assert.doesNotMatch(s.stderr, /could not be written/);

    const db = new DatabaseSync(join(dir, 'switchyard.db'), { readOnly: true });
    try {
      for (const { id } of streams) {
        const rec = db.prepare('SELECT cancelled, cost_nanos FROM generations WHERE id = ?').get(id) as
          { cancelled: number; cost_nanos: number } | undefined;
        assert.ok(rec !== undefined, `${id} has its record`);
        assert.equal(rec.cancelled, 1);
        assert.ok(rec.cost_nanos > 0, `${id} is charged what it used`);
        const charge = db.prepare("SELECT -amount_nanos AS n FROM ledger WHERE kind = 'charge' AND generation_id = ?").get(id) as
          { n: number } | undefined;
        assert.equal(charge?.n, rec.cost_nanos, `${id}'s charge is in the ledger`);
      }
      assert.equal((db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n, 0, 'no hold row left');
      assert.equal(db.prepare('SELECT * FROM serve_lease').get(), undefined, 'the lease was released');
    } finally {
      db.close();
    }
  } finally {
    killLeft([s.child.pid!]);
  }
});
