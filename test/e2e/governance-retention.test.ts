import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call } from '../support/admin-client.ts';
import { createTestDatabase, postgresUnavailable, stopPostgres } from '../support/postgres-server.ts';
import { redisUnavailable, startRedis, type RedisServer } from '../support/redis-server.ts';
import { SIM_ONLY, startTestGateway } from '../support/test-gateway.ts';

// The governance tables pruned by age (`retention:`, server/governance-retention.ts), on
// SQLite and on Postgres: webhook deliveries past `webhook_deliveries_days` go with their
// attempts (a pending one stays), MCP tool calls past `mcp_tool_calls_days`, budget alerts
// past `budget_alerts_days` whose window has ended (a windowless budget's and a low balance's
// alert rows stay, so they never fire twice). What remains is read through the API. The
// gateway's clock is injected and moved on; the pass is the job's own (runOnce), as its timer runs it.

const DAY = 86_400_000;
const YAML = `${SIM_ONLY}webhooks: { allow_private_addresses: true, retry_base_ms: 3600000, max_attempts: 3 }
retention: { webhook_deliveries_days: 7, mcp_tool_calls_days: 7, budget_alerts_days: 7 }
`;

let redis: RedisServer | undefined;
after(async () => {
  await redis?.stop();
  await stopPostgres();
});

/** A receiver that answers `status` to everything. */
async function receiver(status: number) {
  let got = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got++;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get got() {
      return got;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const ENGINES = [
  { name: 'SQLite', skip: false as string | false, env: async (): Promise<Record<string, string>> => ({}) },
  {
    name: 'Postgres and Redis',
    skip: postgresUnavailable() ?? redisUnavailable() ?? false,
    env: async (): Promise<Record<string, string>> => {
      redis ??= await startRedis();
      return { LOCAL_KEY: 'k', DATABASE_URL: await createTestDatabase(), REDIS_URL: redis.url };
    },
  },
];

for (const engine of ENGINES)
  describe(`governance tables pruned by age: ${engine.name}`, { skip: engine.skip }, () => {
    test("old deliveries (not pending), tool calls and ended windows' alerts go; the rest stays", async () => {
      let now = Date.UTC(2026, 3, 1, 12);
      const gw = await startTestGateway({ yaml: YAML, now: () => now, env: await engine.env() });
      const ok = await receiver(200);
      const failing = await receiver(500);
      try {
        const mgmt = (await gw.services.accountService.createKey({ accountId: gw.accountId, name: 'mgmt', management: true })).key;
        const api = (path: string) => `${gw.origin}/api/v1${path}`;
        const good = (await call('POST', api('/webhooks'), mgmt, { url: ok.url, events: ['key.created'] })).json.data.id as string;
        const bad = (await call('POST', api('/webhooks'), mgmt, { url: failing.url, events: ['key.created'] })).json.data.id as string;
        const deliveries = async (id: string) =>
          (await call('GET', api(`/webhooks/${id}/deliveries`), mgmt)).json.data as Array<{ status: string; attempts: unknown[] }>;
        const until = async (id: string, done: (d: Array<{ status: string }>) => boolean) => {
          for (;;) {
            const d = await deliveries(id);
            if (done(d)) return d;
            await new Promise((r) => setImmediate(r));
          }
        };
        for (const name of ['one', 'two', 'three']) assert.equal((await call('POST', api('/keys'), mgmt, { name })).status, 201);
        await until(good, (d) => d.length === 3 && d.every((x) => x.status === 'delivered'));
        // The failing receiver's deliveries stay pending (their next attempt an hour on).
        await until(bad, (d) => d.length === 3 && failing.got >= 3);

        const tool = (id: string, at: number) =>
          gw.services.stores.mcpCalls.record({
            id,
            at: new Date(at).toISOString(),
            accountId: gw.accountId,
            keyHash: gw.keyHash,
            server: 'srv',
            tool: 't',
            via: 'endpoint',
            status: 'ok',
            durationMs: 3,
            error: null,
            generationId: null,
          });
        await tool('mcpc_old', now - 10 * DAY);
        await tool('mcpc_new', now + 7 * DAY); // a day old once the clock moves on
        const alert = (scope: string, windowStart: string, createdAt: number, threshold = 50) =>
          gw.services.stores.budgetAlerts.claim({
            scope,
            subjectId: gw.accountId,
            windowStart,
            threshold,
            accountId: gw.accountId,
            createdAt: new Date(createdAt).toISOString(),
          });
        assert.ok(await alert('account', '2026-02-01T00:00:00.000Z', Date.UTC(2026, 1, 3)), 'an ended month window, long ago');
        assert.ok(await alert('member', '2026-03-30T00:00:00.000Z', Date.UTC(2026, 2, 20), 80), 'old, but its window may not have ended');
        assert.ok(await alert('key', '', Date.UTC(2026, 0, 2)), 'a limit without a window: kept forever');
        assert.ok(await alert('balance', '', Date.UTC(2026, 0, 2), 0), 'a low balance: kept forever');

        now += 8 * DAY; // the deliveries are now 8 days old
        const result = await gw.services.governanceRetention.runOnce();
        assert.deepEqual({ ...result, steps: undefined }, { webhookDeliveries: 3, mcpToolCalls: 1, budgetAlerts: 1, steps: undefined });

        assert.deepEqual(await deliveries(good), [], 'delivered and old: gone');
        assert.equal((await deliveries(bad)).length, 3, 'pending: kept whatever its age');
        const calls = (await call('GET', api('/mcp-calls'), mgmt)).json.data as Array<{ id: string }>;
        assert.deepEqual(
          calls.map((c) => c.id),
          ['mcpc_new'],
        );
        // A claim succeeds again only where the row went.
        assert.equal(await alert('account', '2026-02-01T00:00:00.000Z', now), true, "the ended window's row was pruned");
        assert.equal(await alert('member', '2026-03-30T00:00:00.000Z', now, 80), false);
        assert.equal(await alert('key', '', now), false);
        assert.equal(await alert('balance', '', now, 0), false);
        // Run again: nothing left to prune.
        assert.deepEqual(
          { ...(await gw.services.governanceRetention.runOnce()), steps: undefined },
          { webhookDeliveries: 0, mcpToolCalls: 0, budgetAlerts: 0, steps: undefined },
        );
      } finally {
        await gw.close();
        await ok.close();
        await failing.close();
      }
    });
  });
