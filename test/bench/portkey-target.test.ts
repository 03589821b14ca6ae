// The bench's Portkey target (bench/portkey-server.ts via bench/lib/targets.ts): Portkey's
// gateway starts on loopback, forwards one chat request to the OpenAI-format upstream
// emulator named in its headers, and answers the event-loop probe
// (bench/loop-delay-preload.ts) over its IPC channel. Not timed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from 'undici';
import { readLoopDelay, resetLoopDelay } from '../../bench/lib/loop-delay.ts';
import { killAll, stopChild } from '../../bench/lib/processes.ts';
import { chatBody } from '../../bench/lib/scenarios.ts';
import { startPortkey, type Target } from '../../bench/lib/targets.ts';
import { PATH } from '../../bench/lib/throughput.ts';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';

let upstream: OpenAIChatEmulator;
let portkey: Awaited<ReturnType<typeof startPortkey>>;

before(async () => {
  upstream = await startOpenAIChatEmulator();
  portkey = await startPortkey(upstream.baseUrl.replace(/\/v1$/, ''));
});

after(async () => {
  // (undefined when before() failed)
  if (portkey as typeof portkey | undefined) await stopChild(portkey.child);
  killAll();
  await upstream?.close();
});

async function post(target: Target, body: string): Promise<{ status: number; json: any }> {
  const client = new Client(target.origin);
  try {
    const res = await client.request({ path: PATH, method: 'POST', headers: target.headers, body });
    return { status: res.statusCode, json: await res.body.json() };
  } finally {
    await client.close();
  }
}

test('Portkey listens on loopback and forwards a chat request to the upstream named in its headers', async () => {
  assert.match(portkey.target.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await post(portkey.target, chatBody('mock-model', false));
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.equal(res.json.choices?.[0]?.message?.role, 'assistant');
  assert.equal(upstream.requests.length, 1);
  const seen = upstream.requests[0]!;
  assert.equal(seen.path, '/v1/chat/completions');
  assert.equal(seen.body.model, 'mock-model');
  assert.equal(seen.body.messages.at(-1).content, 'What does a model gateway do, in two sentences?');
  assert.equal(seen.headers.authorization, 'Bearer upstream-secret');
});

test("the event-loop probe answers from inside Portkey's process", async () => {
  await resetLoopDelay(portkey.child.proc);
  await post(portkey.target, chatBody('mock-model', false));
  const d = await readLoopDelay(portkey.child.proc);
  assert.equal(d.resolutionMs, 10);
  assert.ok(Number.isFinite(d.maxMs) && d.maxMs >= 0, JSON.stringify(d));
});
