import assert from 'node:assert/strict';
import type { TestGateway } from './test-gateway.ts';

/**
 * One model surface (chat, embeddings, images, audio...) against the two budgets every
 * request must respect, exactly as chat does: an account with no credit gets 402 before any
 * upstream call (no generation record, a refusal counted), and a key with a credit limit is
 * stopped with 402 once its limit is used, never charged beyond it. `send` makes one
 * request with `key` and resolves with its status and generation id; the surface's model
 * must be priced so that a few requests use up `limitUsd`.
 */
export async function assertBudgetsStopSurface(
  gw: TestGateway,
  send: (key: string) => Promise<{ status: number; generationId: string | null }>,
  limitUsd = '0.01',
): Promise<void> {
  const svc = gw.services.accountService;
  const broke = await svc.createAccount({ name: 'broke', creditsUsd: '0' });
  const { key: brokeKey, record } = await svc.createKey({ accountId: broke.id });
  const refused = await send(brokeKey);
  assert.equal(refused.status, 402, 'an account without credit is refused');
  await gw.flush();
  assert.ok(refused.generationId !== null, 'a refusal names its generation');
  const lookup = await fetch(`${gw.baseUrl}/generation?id=${refused.generationId}`, { headers: { authorization: `Bearer ${brokeKey}` } });
  assert.equal(lookup.status, 404, 'a refusal leaves no generation record');
  const counted = await gw.services.stores.refusals.list({ keyHash: record.hash }, null, 10);
  assert.deepEqual(
    counted.map((c) => [c.reason, c.count]),
    [['insufficient_quota', 1]],
  );

  const { key } = await svc.createKey({ accountId: gw.accountId, limitUsd });
  let status = 200;
  let served = 0;
  for (let i = 0; i < 500 && status === 200; i++) {
    status = (await send(key)).status;
    if (status === 200) served++;
  }
  assert.equal(status, 402, 'the key is stopped at its limit');
  assert.ok(served > 0, 'the key was served until its limit');
  const own = (await (await fetch(`${gw.baseUrl}/key`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    data: { usage: number; limit: number };
  };
  assert.equal(own.data.limit, Number(limitUsd));
  assert.ok(own.data.usage > 0 && own.data.usage <= own.data.limit, `usage ${own.data.usage} stays within the limit ${own.data.limit}`);
}
