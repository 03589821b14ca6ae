// Stalls of the gateway's event loop at one connection: the gateway (bench/gateway-server.ts,
// settlement and all as in production) in its own process, the upstream in another, and
// this process sending N sequential non-streamed requests on one keep-alive connection.
// Reports the latency p50/p90/p99/p99.9/max seen by the client and the gateway's own event
// loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution) over the same requests.
//
// Usage: node bench/event-loop-stalls.ts [--requests N] [--warmup N] [--stream] [--node-arg FLAG]...
// e.g.   node bench/event-loop-stalls.ts --requests 10000 --node-arg --max-semi-space-size=4

import { parseArgs } from 'node:util';
import { Client } from 'undici';
import { startChild, stopChild, type Child } from './lib/processes.ts';
import { chatBody, GATEWAY_MODEL } from './lib/scenarios.ts';
import { PATH } from './lib/throughput.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '1000' },
    stream: { type: 'boolean', default: false },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const stream = values.stream === true;

interface LoopFigures {
  loopDelayMs: { p50: number; p99: number; p999: number; max: number };
  gc: { young: { n: number; ms: number; maxMs: number }; full: { n: number; ms: number; maxMs: number } };
  rssMb: number;
  cpuMs: number;
}

const here = new URL('.', import.meta.url).pathname;
const upstream = await startChild<{ port: number }>('upstream', `${here}upstream-server.ts`, []);
const gateway = await startChild<{ port: number; key: string }>(
  'gateway',
  `${here}gateway-server.ts`,
  [`http://127.0.0.1:${upstream.info.port}/v1`],
  { nodeArgs: values['node-arg'] },
);

/** Asks the gateway for its loop figures since the last ask (and resets them). */
function loopFigures(child: Child<unknown>): Promise<LoopFigures> {
  return new Promise((resolve) => {
    let buffered = '';
    const onData = (text: Buffer | string): void => {
      buffered += String(text);
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      child.proc.stdout!.off('data', onData);
      resolve(JSON.parse(buffered.slice(0, nl)) as LoopFigures);
    };
    child.proc.stdout!.on('data', onData);
    child.proc.stdin!.write('loop\n');
  });
}

const client = new Client(`http://127.0.0.1:${gateway.info.port}`, { pipelining: 1 });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${gateway.info.key}` };
const body = chatBody(GATEWAY_MODEL, stream);

async function one(): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await client.request({ method: 'POST', path: PATH, headers, body });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  return Number(process.hrtime.bigint() - start);
}

try {
  for (let i = 0; i < warmup; i++) await one();
  const before = await loopFigures(gateway);
  const samples = new Float64Array(requests);
  const started = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) samples[i] = await one();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const loop = await loopFigures(gateway);
  samples.sort();
  const at = (q: number): number => Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! / 1e4) / 100;
  process.stdout.write(
    `${JSON.stringify(
      {
        requests,
        stream,
        nodeArgs: values['node-arg'],
        requestsPerSecond: Math.round(requests / seconds),
        latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1) },
        gatewayLoopDelayMs: loop.loopDelayMs,
        gatewayGc: loop.gc,
        gatewayRssMb: loop.rssMb,
        gatewayCpuMsPerRequest: Math.round(((loop.cpuMs - before.cpuMs) / requests) * 1000) / 1000,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await client.close();
  await stopChild(gateway);
  await stopChild(upstream);
}
