// The switchyard the bench measures (bench/gateway-server.ts with bench/lib/switchyard-config.ts)
// keeps every promise on (issue 14: no promise traded for speed): moderation refuses a
// flagged prompt before any upstream sees it, routing fails over from a failing endpoint,
// and each answer is charged before its last byte. Through real HTTP, against the
// OpenAI-format upstream emulator. Not timed.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Client } from 'undici';
import { killAll, stopChild } from '../../bench/lib/processes.ts';
import { chatBody, GATEWAY_MODEL } from '../../bench/lib/scenarios.ts';
import { startSwitchyard, type Target } from '../../bench/lib/targets.ts';
import { PATH } from '../../bench/lib/throughput.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';

let upstream: OpenAIChatEmulator;
let switchyard: Awaited<ReturnType<typeof startSwitchyard>>;

before(async () => {
  upstream = await startOpenAIChatEmulator();
  switchyard = await startSwitchyard(upstream.baseUrl.replace(/\/v1$/, ''));
});

after(async () => {
  // (undefined when before() failed)
  if (switchyard as typeof switchyard | undefined) await stopChild(switchyard.child);
  killAll();
  await upstream?.close();
});

async function call(target: Target, path: string, body?: string): Promise<{ status: number; json: any }> {
  const client = new Client(target.origin);
  try {
    const res = await client.request({
      path,
      method: body === undefined ? 'GET' : 'POST',
      headers: target.headers,
      ...(body === undefined ? {} : { body }),
    });
    return { status: res.statusCode, json: await res.body.json() };
  } finally {
    await client.close();
  }
}

test("moderation is on: a prompt matching the bench's rule is refused and reaches no upstream", async () => {
  upstream.reset();
  const flagged = JSON.stringify({ model: GATEWAY_MODEL, messages: [{ role: 'user', content: 'say the forbidden   words' }] });
  const res = await call(switchyard.target, PATH, flagged);
  assert.equal(res.status, 403, JSON.stringify(res.json));
  assert.equal(upstream.requests.length, 0);
});

test('routing is on: the model has two endpoints, and one that fails is followed by the other', async () => {
  upstream.reset();
  // The first endpoint fails; the plan moves on to the second at once (retries are for the last one).
  upstream.enqueue({ fault: 'status', status: 503 });
  const res = await call(switchyard.target, PATH, chatBody(GATEWAY_MODEL, false));
  assert.equal(res.status, 200, JSON.stringify(res.json));
  const record = await call(switchyard.target, `/api/v1/generation?id=${encodeURIComponent(res.json.id)}`);
  const providers = new Set((record.json.data.attempts as Array<{ provider: string }>).map((a) => a.provider));
  assert.deepEqual([...providers].sort(), ['local', 'local-b'], JSON.stringify(record.json.data.attempts));
});

test("settlement is on: the answer's charge is in the account's generation record when the answer has arrived", async () => {
  upstream.reset();
  const res = await call(switchyard.target, PATH, chatBody(GATEWAY_MODEL, false));
  assert.equal(res.status, 200);
  const record = await call(switchyard.target, `/api/v1/generation?id=${encodeURIComponent(res.json.id)}`);
  assert.equal(record.status, 200, JSON.stringify(record.json));
  assert.ok(Number(record.json.data.total_cost) > 0, JSON.stringify(record.json));
});

test('the bench starts switchyard with the Node flags `npm start` runs it with (its young-generation size, the type-stripped sources)', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const flag = /--max-semi-space-size=\d+/.exec(pkg.scripts.start)?.[0];
  assert.ok(flag !== undefined, `npm start sets the semi-space size: ${pkg.scripts.start}`);
  assert.match(pkg.scripts.start, /--import \.\/bin\/type-stripped-hook\.mjs/, 'npm start serves the type-stripped sources');
  const argv = readFileSync(`/proc/${switchyard.target.pid}/cmdline`, 'utf8').split('\0');
  assert.ok(argv.includes(flag), `the bench's switchyard runs with ${flag}: ${argv.join(' ')}`);
  assert.ok(
    argv.some((a) => a.endsWith('/bin/type-stripped-hook.mjs')),
    `the bench's switchyard runs with the hook: ${argv.join(' ')}`,
  );
});
