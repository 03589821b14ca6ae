import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listening, run, serveEnv, starterKey, stop, tempDir } from '../support/serve-process.ts';

// The request log never blocks the event loop (issue 14): a gateway whose stdout nobody
// reads — a log collector that stalls, a pipe left full — keeps serving. Each request writes
// a JSON line of ~600 bytes to stdout; with blocking writes the gateway would stop once the
// pipe and the reader's buffer (~128 KB) were full, a few hundred requests in. Once the
// reader reads again, every line arrives.

const BIN = new URL('../../bin/switchyard.mjs', import.meta.url).pathname;
const REQUESTS = 800;

test('a stdout nobody reads does not stall the gateway; the lines arrive once it is read', async () => {
  const s = run(process.execPath, [BIN, 'serve'], { env: serveEnv({ SWITCHYARD_DATA_DIR: tempDir('switchyard-log-pipe'), PORT: '0' }) });
  // The reader stalls: nothing is taken from the pipe from here on.
  s.child.stdout!.pause();
  s.child.stdout!.removeAllListeners('data');
  const origin = await listening(s);
  const key = await starterKey(s);
  const body = JSON.stringify({
    model: 'switchyard/sim-fast',
    messages: [{ role: 'user', content: 'one line of log, please' }],
    max_tokens: 8,
  });
  const ids: string[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const res = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(res.status, 200, await res.clone().text());
    ids.push(res.headers.get('x-generation-id')!);
    await res.arrayBuffer();
  }
  // The reader comes back: every request's line is there, in order of arrival.
  let out = '';
  s.child.stdout!.setEncoding('utf8');
  s.child.stdout!.on('data', (d: string) => {
    out += d;
  });
  s.child.stdout!.resume();
  const logged = new Promise<void>((resolve) => {
    const check = (): void => {
      if (ids.every((id) => out.includes(`"generation_id":"${id}"`))) resolve();
      else s.child.stdout!.once('data', check);
    };
    check();
  });
  await logged;
  assert.ok(out.length > 128 * 1024, `more than a pipe and a reader's buffer were written (${out.length} bytes)`);
  const exit = await stop(s);
  assert.equal(exit.code, 0, s.stderr);
});
