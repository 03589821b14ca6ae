import assert from 'node:assert/strict';
import { InProcessStickyRoutes, type StickyRoutes } from '../../src/routing/sticky/sticky-routes.ts';
import { RedisStickyRoutes } from '../../src/routing/sticky/redis-sticky-routes.ts';
import { eachImplementation } from './each-store-implementation.ts';

// The StickyRoutes contract, as sticky-routing.ts relies on it, run against the in-process
// LRU and the fleet's Redis store alike: a lookup walks its keys in order and answers the
// first remembered, a hit refreshes the entry's TTL, each account (owner) is bounded to
// its share in entries and evicts only its own least recently used, and two gateways'
// prefixes on one Redis never see each other's routes.

const LONG = 60_000;
const SCOPE = 'scope1';

eachImplementation<StickyRoutes>(
  'StickyRoutes',
  {
    inProcess: (clock) => new InProcessStickyRoutes({ maxEntries: 1_000, now: () => clock.now }),
    redis: (connection, prefix, clock) => new RedisStickyRoutes(connection, prefix, () => clock.now),
  },
  (it) => {
    it('a remembered route is found; unknown keys and an empty lookup find nothing; the first key that has one wins', async (s) => {
      const routes = s.store();
      assert.equal(await routes.find('acct', SCOPE, ['k1'], LONG), null);
      assert.equal(await routes.find('acct', SCOPE, [], LONG), null);
      await routes.remember('acct', SCOPE, 'k2', 'ep-b', LONG, 10);
      await routes.remember('acct', SCOPE, 'k3', 'ep-c', LONG, 10);
      assert.equal(await routes.find('acct', SCOPE, ['k2'], LONG), 'ep-b');
      assert.equal(await routes.find('acct', SCOPE, ['k1', 'k3', 'k2'], LONG), 'ep-c', 'the first key in lookup order that has a route');
      assert.equal(await routes.find('acct', SCOPE, ['k1', 'k4'], LONG), null);
    });

    it('remembering a key again replaces its endpoint and still counts once', async (s) => {
      const routes = s.store();
      await routes.remember('acct', SCOPE, 'k1', 'ep-a', LONG, 2);
      s.tick();
      await routes.remember('acct', SCOPE, 'k1', 'ep-b', LONG, 2);
      s.tick();
      await routes.remember('acct', SCOPE, 'k2', 'ep-c', LONG, 2);
      assert.equal(await routes.find('acct', SCOPE, ['k1'], LONG), 'ep-b');
      assert.equal(
        await routes.find('acct', SCOPE, ['k2'], LONG),
        'ep-c',
        'two keys fit a bound of 2: the replaced entry was not counted twice',
      );
    });

    it("an account's routes are its own: another account never finds them", async (s) => {
      const routes = s.store();
      await routes.remember('acct-a', SCOPE, 'k1', 'ep-a', LONG, 10);
      assert.equal(await routes.find('acct-b', SCOPE, ['k1'], LONG), null);
      await routes.remember('acct-b', SCOPE, 'k1', 'ep-b', LONG, 10);
      assert.equal(await routes.find('acct-a', SCOPE, ['k1'], LONG), 'ep-a', 'the same key under two accounts is two routes');
      assert.equal(await routes.find('acct-b', SCOPE, ['k1'], LONG), 'ep-b');
    });

    it("past its share an account loses its least recently used routes, a hit counting as a use, and no one else's", async (s) => {
      const routes = s.store();
      await routes.remember('other', SCOPE, 'theirs', 'ep-x', LONG, 2);
      for (const k of ['k1', 'k2', 'k3']) {
        s.tick();
        await routes.remember('acct', SCOPE, k, `ep-${k}`, LONG, 3);
      }
      s.tick();
      assert.equal(await routes.find('acct', SCOPE, ['k1'], LONG), 'ep-k1'); // k1 is now the most recently used
      s.tick();
      await routes.remember('acct', SCOPE, 'k4', 'ep-k4', LONG, 3);
      assert.equal(await routes.find('acct', SCOPE, ['k2'], LONG), null, 'k2, the least recently used, went');
      for (const k of ['k1', 'k3', 'k4']) assert.equal(await routes.find('acct', SCOPE, [k], LONG), `ep-${k}`);
      // A flood past the share takes the account's own oldest only.
      for (let i = 0; i < 20; i++) {
        s.tick();
        await routes.remember('acct', SCOPE, `flood${i}`, 'ep-f', LONG, 3);
      }
      const kept = [];
      for (let i = 0; i < 20; i++) if ((await routes.find('acct', SCOPE, [`flood${i}`], LONG)) !== null) kept.push(i);
      assert.deepEqual(kept, [17, 18, 19]);
      assert.equal(await routes.find('other', SCOPE, ['theirs'], LONG), 'ep-x', "another account's route stays");
    });

    it("a route expires after its TTL; a hit refreshes it with the caller's TTL", async (s) => {
      const routes = s.store();
      await routes.remember('acct', SCOPE, 'kept', 'ep-a', s.shortTtlMs, 10);
      await routes.remember('acct', SCOPE, 'dropped', 'ep-b', s.shortTtlMs, 10);
      assert.equal(await routes.find('acct', SCOPE, ['kept'], LONG), 'ep-a'); // refreshed for LONG
      await s.pastShortTtl();
      assert.equal(await routes.find('acct', SCOPE, ['dropped'], LONG), null);
      assert.equal(await routes.find('acct', SCOPE, ['kept'], LONG), 'ep-a');
    });

    it("two gateways' prefixes never share routes; stores of one prefix do", async (s) => {
      await s.store('gw-a').remember('acct', SCOPE, 'k1', 'ep-a', LONG, 10);
      assert.equal(await s.store('gw-b').find('acct', SCOPE, ['k1'], LONG), null);
      await s.store('gw-b').remember('acct', SCOPE, 'k1', 'ep-b', LONG, 10);
      assert.equal(await s.store('gw-a').find('acct', SCOPE, ['k1'], LONG), 'ep-a');
      assert.equal(await s.store('gw-b').find('acct', SCOPE, ['k1'], LONG), 'ep-b');
    });
  },
);
