import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { countTokens } from '../../src/canonical/bpe-tokenizers.ts';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { emulatorConfig, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startRoutingRig, user } from './routing-fixture.ts';

// Issue 23 §5: a client that leaves before its answer — a non-streamed request at any point,
// a stream before its first byte — is charged what the provider bills, as a client that
// leaves a stream it has begun to read is (billing-client-disconnect.test.ts): the upstream
// is read on, unseen, for `timeouts.disconnect_grace_ms`; its usage is charged, else (no
// answer within the grace) the estimate. Before, the upstream call was cancelled at once and
// nothing was charged, though the upstream had been sent (and billed) the request.
// The upstream answers 100 prompt + 20 completion tokens; prices $0.000001 / $0.000002.

const PROMPT = 'Answer slowly, please.';
const UPSTREAM_COST = 100n * 1000n + 20n * 2000n;

/** Resolves when the gateway's side of the next connection it accepts has closed. */
function gatewaySocketClosed(gw: TestGateway): Promise<void> {
  return new Promise((resolve) => {
    gw.app.server.once('connection', (socket) => socket.once('close', () => resolve()));
  });
}

/** The next settlement record the gateway commits. */
function nextCommitted(gw: TestGateway): Promise<string> {
  return new Promise((resolve) => {
    let done = false;
    gw.services.settlements.onCommitted((batch) => {
      if (done || batch.length === 0) return;
      done = true;
      resolve(batch[0]!.id);
    });
  });
}

/** Sends a chat completion over a raw connection; the caller destroys it (`leave`). */
function send(
  gw: TestGateway,
  stream: boolean,
  body: Record<string, unknown> = { model: 'acme/mock-1', messages: [{ role: 'user', content: PROMPT }] },
): ClientRequest {
  const url = new URL(`${gw.baseUrl}/chat/completions`);
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gw.key}` },
    },
    (res) => {
      res.on('error', () => {});
      res.resume();
    },
  );
  req.on('error', () => {});
  req.end(JSON.stringify({ ...body, stream }));
  return req;
}

describe('a client that leaves before its answer', () => {
  let up: HookedUpstream;
  before(async () => {
    up = await startHookedUpstream();
  });
  after(() => up.close());

  for (const stream of [false, true]) {
    const what = stream ? 'a stream, before its first byte,' : 'a non-streamed request';
    test(`leaving ${what} while the upstream works is charged the upstream's usage`, async () => {
      const gw = await startTestGateway({ yaml: emulatorConfig(up.baseUrl), env: { LOCAL_KEY: 'upstream-key' }, credits: '10' });
      try {
        const closed = gatewaySocketClosed(gw);
        const committed = nextCommitted(gw);
        let client: ClientRequest | null = null;
        // The upstream has the request: the client leaves, and the upstream answers only once the gateway saw it go.
        up.onNextRequest = () => {
          client!.destroy();
          return closed;
        };
        client = send(gw, stream);
        const record = (await gw.services.stores.generations.getRecord(await committed))!;
        assert.equal(record.cancelled, true, 'the record says the client left');
        assert.equal(record.tokensPrompt, 100);
        assert.equal(record.tokensCompletion, 20);
        assert.equal(record.costNanos, UPSTREAM_COST);
      } finally {
        await gw.close();
      }
    });
  }

  test('leaving a non-streamed request whose upstream does not answer within the grace is charged the estimate', async () => {
    const gw = await startTestGateway({
      yaml: emulatorConfig(up.baseUrl),
      env: { LOCAL_KEY: 'upstream-key' },
      credits: '10',
      tweak: (c) => {
        c.timeouts.disconnectGraceMs = 50;
      },
    });
    const { promise: never, resolve: release } = Promise.withResolvers<void>();
    try {
      const committed = nextCommitted(gw);
      let client: ClientRequest | null = null;
      // The client leaves; the upstream never answers (until the test ends).
      up.onNextRequest = () => {
        client!.destroy();
        return never;
      };
      client = send(gw, false);
      const record = (await gw.services.stores.generations.getRecord(await committed))!;
      // The estimate (docs/billing.md): the prompt counted with o200k_base, chat framing
      // included; no output came and the model does not reason, so none is charged.
      const promptTokens = 7 + countTokens(PROMPT, 'o200k_base');
      assert.equal(record.cancelled, true);
      assert.equal(record.tokensPrompt, promptTokens);
      assert.equal(record.tokensCompletion, 0);
      assert.equal(record.costNanos, BigInt(promptTokens) * 1000n);
    } finally {
      release();
      await gw.close();
    }
  });

  test('no other endpoint is tried for a client that left: an attempt failing meanwhile is charged nothing', async () => {
    const rig = await startRoutingRig();
    try {
      const closed = gatewaySocketClosed(rig.gw);
      const committed = nextCommitted(rig.gw);
      // cheap fails (500, retryable) once the gateway has seen the client go; mid would serve.
      rig.emus.cheap.enqueue({ fault: 'held', until: closed, then: { status: 500, text: 'overloaded' } });
      const client = send(rig.gw, false, { model: 'acme/multi', messages: user('hi'), provider: { sort: 'price' } });
      await rig.emus.cheap.whenRequests(1);
      client.destroy();
      const record = (await rig.gw.services.stores.generations.getRecord(await committed))!;
      assert.equal(record.cancelled, true);
      assert.equal(record.costNanos, 0n, 'an upstream error before content costs nothing');
      assert.deepEqual(rig.received(), ['multi-cheap'], 'mid was never asked');
    } finally {
      await rig.close();
    }
  });
});
