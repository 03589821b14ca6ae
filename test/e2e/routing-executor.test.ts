import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { gate } from '../emulators/openai-chat-emulator.ts';
import type { AddressInfo } from 'node:net';
import type { CanonicalRequest, ProviderPreferences } from '../../src/canonical/request.ts';
import type { Endpoint } from '../../src/catalog/types.ts';
import { FoldingSink } from '../../src/pipeline/folding-sink.ts';
import { UpstreamClient } from '../../src/providers/http/upstream-client.ts';
import type { PlannedAttempt } from '../../src/catalog/types.ts';
import { CircuitBreakers } from '../../src/routing/circuit-breaker.ts';
import { AttemptExecutor } from '../../src/routing/execute-attempts.ts';
import { InProcessHealthStore } from '../../src/routing/health/in-process-health-store.ts';
import { AttemptPlanner } from '../../src/routing/plan-attempts.ts';
import { RetryPolicy } from '../../src/routing/retry-policy.ts';
import type { EmulatorStep } from '../emulators/openai-chat-emulator.ts';
import { startRoutingRig, type RoutingRig } from './routing-fixture.ts';

// The executor over real HTTP against the emulated providers, with the clock, the pauses
// and the random source injected: retries that honour Retry-After without waiting for it,
// and the circuit breaker's whole cycle without waiting for its cool-down.

function request(model: string, provider?: ProviderPreferences): CanonicalRequest {
  const req: CanonicalRequest = {
    models: [{ model }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
  };
  if (provider !== undefined) req.provider = provider;
  return req;
}

describe('routing: the executor', () => {
  let rig: RoutingRig;
  let client: UpstreamClient;
  const clock = { now: 1_000_000 };
  let sleeps: number[];
  let health: InProcessHealthStore;
  let breakers: CircuitBreakers;
  let planner: AttemptPlanner;
  let executor: AttemptExecutor;

  before(async () => {
    rig = await startRoutingRig();
    client = new UpstreamClient();
  });
  after(async () => {
    await client.close();
    await rig.close();
  });
  beforeEach(() => {
    rig.reset();
    sleeps = [];
    const now = () => clock.now;
    health = new InProcessHealthStore({ now });
    breakers = new CircuitBreakers({ now, failureThreshold: 3, cooldownMs: 10_000 });
    planner = new AttemptPlanner({ catalog: rig.gw.services.inForce.catalog, health, breakers, random: () => 0 });
    executor = new AttemptExecutor({
      adapters: rig.gw.services.adapters,
      client,
      health,
      breakers,
      retry: new RetryPolicy({ random: () => 0.5 }),
      requestTimeoutMs: 60_000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
  });

  async function run(req: CanonicalRequest, plan: PlannedAttempt[] = planner.plan(req), attemptMs = 5_000) {
    return executor.execute(plan, req, new FoldingSink(), new AbortController().signal, attemptMs);
  }

  test('a 429 with Retry-After on the last endpoint is retried after that long', async () => {
    rig.emus.dear.enqueue({ fault: 'rate-limit', retryAfterSeconds: 2 });
    const result = await run(request('acme/backup'));
    assert.equal(result.error, null);
    assert.equal(result.served?.endpoint.id, 'dear/backup-dear');
    assert.deepEqual(sleeps, [2_000], 'never sooner than the upstream asked');
    assert.deepEqual(
      result.attempts.map((a) => a.status),
      [429, 200],
    );
  });

  test('a Retry-After longer than the gateway waits is returned, not waited for', async () => {
    rig.emus.dear.enqueue({ fault: 'rate-limit', retryAfterSeconds: 120 });
    const result = await run(request('acme/backup'));
    assert.equal(result.error?.code, 'provider_error');
    assert.equal(result.error?.metadata?.upstream_status, 429);
    assert.deepEqual(sleeps, []);
    assert.equal(rig.emus.dear.requests.length, 1);
  });

  test('a refused connection is retried with exponential backoff and jitter, then given up', async () => {
    const port = await closedPort();
    const [attempt] = planner.plan(request('acme/backup'));
    const endpoint: Endpoint = {
      ...attempt!.endpoint,
      id: 'dead/backup',
      provider: { ...attempt!.endpoint.provider, id: 'dead', baseUrl: `http://127.0.0.1:${port}/v1` },
    };
    const result = await run(request('acme/backup'), [{ model: attempt!.model, endpoint }]);
    assert.equal(result.error?.code, 'provider_error');
    assert.equal(result.error?.metadata?.provider_name, 'dead');
    // Ceilings 250 ms then 500 ms, each drawn at half (the injected random is 0.5).
    assert.deepEqual(sleeps, [125, 250]);
    assert.equal(result.attempts.length, 3);
    assert.equal((result.error?.metadata?.attempts as unknown[]).length, 2);
  });

  test('a 500 without Retry-After on the last endpoint is retried after a backoff', async () => {
    rig.emus.dear.enqueue({ fault: 'status', status: 500 });
    const result = await run(request('acme/backup'));
    assert.equal(result.error, null);
    assert.equal(result.served?.endpoint.id, 'dear/backup-dear');
    assert.deepEqual(sleeps, [125], 'the first ceiling (250 ms), drawn at half');
    assert.deepEqual(
      result.attempts.map((a) => a.status),
      [500, 200],
    );
    assert.equal(rig.emus.dear.requests.length, 2);
  });

  test('every transient failure is retried on the last endpoint: 408, 429, 5xx, a broken answer, the attempt timeout', async () => {
    const faults: Array<[string, EmulatorStep, number]> = [
      ['408', { fault: 'status', status: 408 }, 408],
      ['429 without Retry-After', { fault: 'status', status: 429 }, 429],
      ['502', { fault: 'status', status: 502 }, 502],
      ['503', { fault: 'status', status: 503 }, 503],
      ['504', { fault: 'status', status: 504 }, 504],
      ['a body that is not JSON', { fault: 'malformed-json' }, 200],
      ['no answer within the attempt timeout', { fault: 'hang' }, 0],
      ['headers, then nothing', { fault: 'stall-after-headers' }, 200],
    ];
    for (const [what, fault, status] of faults) {
      rig.reset();
      sleeps = [];
      rig.emus.dear.enqueue(fault);
      const result = await run(request('acme/backup'), undefined, 300);
      assert.equal(result.error, null, what);
      assert.equal(result.served?.endpoint.id, 'dear/backup-dear', what);
      assert.deepEqual(
        result.attempts.map((a) => a.status),
        [status, 200],
        what,
      );
      assert.deepEqual(sleeps, [125], what);
    }
  });

  test('retries are bounded: after two, the last failure is returned with the earlier attempts', async () => {
    rig.emus.dear.enqueue({ fault: 'status', status: 503 }, { fault: 'status', status: 503 }, { fault: 'status', status: 503 });
    const result = await run(request('acme/backup'));
    assert.equal(result.error?.code, 'provider_error');
    assert.equal(result.error?.metadata?.upstream_status, 503);
    assert.deepEqual(sleeps, [125, 250], 'exponential: ceilings 250 then 500 ms');
    assert.equal(rig.emus.dear.requests.length, 3);
    assert.deepEqual(
      (result.error?.metadata?.attempts as Array<{ status: number }>).map((a) => a.status),
      [503, 503],
    );
  });

  test("a request's retries count once toward its endpoint's health and circuit", async () => {
    // The breaker here opens after 3 consecutive failures, and 3 failures in 30 s demote.
    rig.emus.dear.enqueue({ fault: 'status', status: 503 }, { fault: 'status', status: 503 }, { fault: 'status', status: 503 });
    const result = await run(request('acme/backup'));
    assert.equal(result.attempts.length, 3, 'every attempt is recorded');
    assert.equal(breakers.state('dear/backup-dear'), 'closed', 'one failed request, not three failures');
    assert.equal(health.hasRecentOutage('dear/backup-dear'), false);
    assert.equal(health.health('dear/backup-dear').uptimeLast30m, 0);
    // A retry that succeeds is observed, and closes the books on the failure before it.
    rig.emus.dear.enqueue({ fault: 'status', status: 503 });
    assert.equal((await run(request('acme/backup'))).error, null);
    clock.now += 60_000; // past the health summary's cache
    assert.equal(health.health('dear/backup-dear').uptimeLast30m, 33.33, 'two failures (one per request), one success');
    assert.equal(breakers.state('dear/backup-dear'), 'closed');
  });

  test('with another endpoint left, a failure moves on to it at once, without a retry or a pause', async () => {
    rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
    const result = await run(request('acme/multi', { order: ['cheap', 'mid'], allowFallbacks: false }));
    assert.equal(result.served?.endpoint.id, 'mid/multi-mid');
    assert.deepEqual(sleeps, []);
    assert.equal(rig.emus.cheap.requests.length, 1);
  });

  test('our credentials or balance with the provider (401, 402, 403) are not retried', async () => {
    for (const status of [401, 402, 403]) {
      rig.reset();
      rig.emus.dear.enqueue({ fault: 'status', status });
      const result = await run(request('acme/backup'));
      assert.equal(result.error?.metadata?.upstream_status, status);
      assert.equal(rig.emus.dear.requests.length, 1, String(status));
    }
    assert.deepEqual(sleeps, []);
  });

  test('a pause that would outlast the request deadline is not taken', async () => {
    const short = new AttemptExecutor({
      adapters: rig.gw.services.adapters,
      client,
      health,
      breakers,
      retry: new RetryPolicy({ random: () => 0.5 }),
      requestTimeoutMs: 100,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    rig.emus.dear.enqueue({ fault: 'status', status: 500 });
    const req = request('acme/backup');
    const result = await short.execute(planner.plan(req), req, new FoldingSink(), new AbortController().signal, 5_000);
    assert.equal(result.error?.metadata?.upstream_status, 500);
    assert.deepEqual(sleeps, [], '125 ms would pass the 100 ms deadline');
    assert.equal(rig.emus.dear.requests.length, 1);
  });

  test('the circuit breaker: closed → open (skipped) → half-open (one probe) → closed', async () => {
    const req = request('acme/multi', { order: ['cheap', 'mid'], allowFallbacks: false });
    // Closed: three failures in a row on cheap (mid serves each time).
    for (let i = 0; i < 3; i++) {
      rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
      const result = await run(req);
      assert.equal(result.served?.endpoint.id, 'mid/multi-mid');
    }
    assert.equal(breakers.state('cheap/multi-cheap'), 'open');
    rig.reset();

    // Open: cheap is not asked at all.
    let result = await run(req);
    assert.equal(result.served?.endpoint.id, 'mid/multi-mid');
    assert.equal(rig.emus.cheap.requests.length, 0);

    // Half-open after the cool-down: one probe at a time; others skip cheap meanwhile.
    clock.now += 10_000;
    assert.equal(breakers.state('cheap/multi-cheap'), 'half-open');
    const probeAnswer = gate();
    rig.emus.cheap.enqueue({ fault: 'held', until: probeAnswer.until, then: { text: 'probe ok' } });
    const probe = run(req);
    // The probe is out once cheap has it; its answer waits until the other request is served.
    while (rig.emus.cheap.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const meanwhile = await run(req);
    probeAnswer.open();
    assert.equal(meanwhile.served?.endpoint.id, 'mid/multi-mid', 'the probe is out: cheap is skipped');
    result = await probe;
    assert.equal(result.served?.endpoint.id, 'cheap/multi-cheap');
    assert.equal(breakers.state('cheap/multi-cheap'), 'closed');

    // Closed again: cheap serves.
    result = await run(req);
    assert.equal(result.served?.endpoint.id, 'cheap/multi-cheap');
  });

  test('a failed probe opens the circuit again', async () => {
    for (let i = 0; i < 3; i++) breakers.onFailure('cheap/multi-cheap');
    clock.now += 10_000;
    rig.emus.cheap.enqueue({ fault: 'status', status: 503 });
    const result = await run(request('acme/multi', { order: ['cheap', 'mid'] }));
    assert.equal(result.served?.endpoint.id, 'mid/multi-mid');
    assert.equal(breakers.state('cheap/multi-cheap'), 'open');
    assert.equal(breakers.retryInMs('cheap/multi-cheap'), 10_000);
  });

  test('rate limits neither open the circuit nor count against uptime', async () => {
    for (let i = 0; i < 5; i++) {
      rig.emus.cheap.enqueue({ fault: 'status', status: 429 });
      await run(request('acme/multi', { order: ['cheap', 'mid'] }));
    }
    assert.equal(breakers.state('cheap/multi-cheap'), 'closed');
    assert.equal(health.hasRecentOutage('cheap/multi-cheap'), false);
    assert.equal(health.health('cheap/multi-cheap').uptimeLast30m, null);
  });

  test('failures feed the outage demotion; answers feed latency and throughput', async () => {
    for (let i = 0; i < 3; i++) {
      rig.emus.cheap.enqueue({ fault: 'status', status: 500 });
      await run(request('acme/multi', { order: ['cheap', 'mid'] }));
    }
    assert.equal(health.hasRecentOutage('cheap/multi-cheap'), true);
    assert.equal(health.health('cheap/multi-cheap').uptimeLast30m, 0);
    const mid = health.health('mid/multi-mid');
    assert.equal(mid.uptimeLast30m, 100);
    assert.ok(mid.latencyLast30m !== null && mid.latencyLast30m.p50 >= 0);
    assert.ok(mid.throughputLast30m !== null && mid.throughputLast30m.p50 > 0);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
