import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanonicalRequest } from '../../canonical/request.ts';
import { InProcessStickyRoutes, type StickyRoutes } from './sticky-routes.ts';
import { StickyRouting } from './sticky-routing.ts';

describe('InProcessStickyRoutes', () => {
  it('an entry lives its TTL, refreshed by each hit', async () => {
    const clock = { now: 10_000 };
    const routes = new InProcessStickyRoutes({ now: () => clock.now });
    await routes.remember('acct', 's', 'k', 'a/m', 1000, Infinity);
    clock.now = 10_900;
    assert.equal(await routes.find('acct', 's', ['x', 'k'], 1000), 'a/m');
    clock.now = 11_800; // 900 after the hit: still there
    assert.equal(await routes.find('acct', 's', ['k'], 1000), 'a/m');
    clock.now = 12_900;
    assert.equal(await routes.find('acct', 's', ['k'], 1000), null);
    assert.equal(routes.size, 0);
  });

  it('bounded: the least recently used entry goes first', async () => {
    const routes = new InProcessStickyRoutes({ maxEntries: 2 });
    await routes.remember('acct', 's', 'one', 'a/m', 60_000, Infinity);
    await routes.remember('acct', 's', 'two', 'b/m', 60_000, Infinity);
    assert.equal(await routes.find('acct', 's', ['one'], 60_000), 'a/m');
    await routes.remember('acct', 's', 'three', 'c/m', 60_000, Infinity);
    assert.equal(routes.size, 2);
    assert.equal(await routes.find('acct', 's', ['two'], 60_000), null);
    assert.equal(await routes.find('acct', 's', ['one'], 60_000), 'a/m');
  });
});

describe('InProcessStickyRoutes per account', () => {
  it("an account past its share evicts its own least recently used entries, never another's", async () => {
    const routes = new InProcessStickyRoutes({ maxEntries: 100 });
    await routes.remember('a', 's', 'mine', 'a/m', 60_000, 10);
    for (let i = 0; i < 50; i++) await routes.remember('b', 's', `flood${i}`, 'b/m', 60_000, 10);
    assert.equal(await routes.find('a', 's', ['mine'], 60_000), 'a/m');
    assert.equal(routes.sizeOf('b'), 10);
    assert.equal(await routes.find('b', 's', ['mine'], 60_000), null, "another account's entry is not found");
  });
});

describe('StickyRouting', () => {
  const req: CanonicalRequest = {
    models: [{ model: 'acme/m' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    sampling: {},
    stream: false,
    extra: {},
  };
  const usage = { input: 10, cacheRead: 4, cacheWrite: 0, output: 1, reasoning: 0 };

  it('a store that fails: the lookup finds nothing, the write is dropped, the log says so once', async () => {
    const broken: StickyRoutes = {
      find: () => Promise.reject(new Error('redis down')),
      remember: () => Promise.reject(new Error('redis down')),
    };
    const logs: string[] = [];
    const sticky = new StickyRouting(broken, (m) => logs.push(m));
    const found = await sticky.lookup('acct', 'acme/m', req);
    assert.equal(found.endpointId, null);
    sticky.remember(found, 'a/m', usage);
    await sticky.lookup('acct', 'acme/m', req);
    assert.equal(logs.length, 1);
    assert.match(logs[0]!, /sticky routing unavailable \(redis down\)/);
  });

  it('remembers only an answer that used the cache, or a request that asked for it', async () => {
    const routes = new InProcessStickyRoutes();
    const sticky = new StickyRouting(routes, () => {});
    const found = await sticky.lookup('acct', 'acme/m', req);
    sticky.remember(found, 'a/m', { ...usage, cacheRead: 0 });
    assert.equal(routes.size, 0);
    sticky.remember(found, 'a/m', usage);
    assert.equal(routes.size, 1);
    const keyed = await sticky.lookup('acct', 'acme/m', { ...req, promptCacheKey: 'k' });
    sticky.remember(keyed, 'b/m', null);
    assert.equal((await sticky.lookup('acct', 'acme/m', { ...req, promptCacheKey: 'k' })).endpointId, 'b/m');
  });
});
