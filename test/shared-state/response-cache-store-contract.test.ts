import assert from 'node:assert/strict';
import { InProcessResponseCacheStore, type ResponseCacheStore } from '../../src/pipeline/response-cache/response-cache-store.ts';
import { RedisResponseCacheStore } from '../../src/pipeline/response-cache/redis-response-cache-store.ts';
import { eachImplementation } from './each-store-implementation.ts';

// The ResponseCacheStore contract, as response-cache.ts relies on it, run against the
// in-process LRU and the fleet's Redis store alike: an answer is kept for its TTL (a read
// does not extend it), each account (owner) is bounded to its share in bytes (UTF-8, as
// the answers are sent) and evicts only its own least recently used answers, a value over
// the share is not kept, and two gateways' prefixes on one Redis never see each other's.

const LONG = 60_000;
const NO_BOUND = Number.POSITIVE_INFINITY;

eachImplementation<ResponseCacheStore>(
  'ResponseCacheStore',
  {
    inProcess: (clock) => new InProcessResponseCacheStore({ maxTotalBytes: 1_000_000, now: () => clock.now }),
    redis: (connection, prefix, clock) => new RedisResponseCacheStore(connection, prefix, () => clock.now),
  },
  (it) => {
    it('an answer kept is read back; a missing one is null; setting a key again replaces it', async (s) => {
      const cache = s.store();
      assert.equal(await cache.get('acct', 'k1'), null);
      await cache.set('acct', 'k1', '{"answer":1}', LONG, NO_BOUND);
      assert.equal(await cache.get('acct', 'k1'), '{"answer":1}');
      await cache.set('acct', 'k1', '{"answer":2}', LONG, NO_BOUND);
      assert.equal(await cache.get('acct', 'k1'), '{"answer":2}');
    });

    it("an account's answers are its own: another account never reads them", async (s) => {
      const cache = s.store();
      await cache.set('acct-a', 'k1', 'a', LONG, NO_BOUND);
      assert.equal(await cache.get('acct-b', 'k1'), null);
      await cache.set('acct-b', 'k1', 'b', LONG, NO_BOUND);
      assert.equal(await cache.get('acct-a', 'k1'), 'a', 'the same key under two accounts is two answers');
      assert.equal(await cache.get('acct-b', 'k1'), 'b');
    });

    it('an answer expires after its TTL, and reading it does not extend it', async (s) => {
      const cache = s.store();
      await cache.set('acct', 'short', 'x', s.shortTtlMs, NO_BOUND);
      await cache.set('acct', 'long', 'y', LONG, NO_BOUND);
      assert.equal(await cache.get('acct', 'short'), 'x');
      await s.pastShortTtl();
      assert.equal(await cache.get('acct', 'short'), null);
      assert.equal(await cache.get('acct', 'long'), 'y');
    });

    it("past its share in bytes an account loses its least recently used answers, a read counting as a use, and no one else's", async (s) => {
      const cache = s.store();
      await cache.set('other', 'theirs', 'o'.repeat(10), LONG, 10);
      for (const k of ['a', 'b', 'c']) {
        s.tick();
        await cache.set('acct', k, k.repeat(4), LONG, 12);
      }
      s.tick();
      assert.equal(await cache.get('acct', 'a'), 'aaaa'); // a is now the most recently used
      s.tick();
      await cache.set('acct', 'd', 'dddd', LONG, 12);
      assert.equal(await cache.get('acct', 'b'), null, 'b, the least recently used, went');
      assert.deepEqual(await Promise.all(['a', 'c', 'd'].map((k) => cache.get('acct', k))), ['aaaa', 'cccc', 'dddd']);
      // Sizes are UTF-8 bytes: 'é' is 2, so 'éééé' (8 bytes) with 'dddd' (4) fills the 12 alone.
      s.tick();
      assert.equal(await cache.get('acct', 'd'), 'dddd'); // d the most recently used, on a tick of its own
      s.tick();
      await cache.set('acct', 'e', 'éééé', LONG, 12);
      assert.deepEqual(await Promise.all(['a', 'c', 'd', 'e'].map((k) => cache.get('acct', k))), [null, null, 'dddd', 'éééé']);
      assert.equal(await cache.get('other', 'theirs'), 'o'.repeat(10), "another account's answer stays");
    });

    it('replacing an answer counts its bytes once', async (s) => {
      const cache = s.store();
      await cache.set('acct', 'a', 'one', LONG, 10);
      s.tick();
      await cache.set('acct', 'a', 'three', LONG, 10);
      s.tick();
      await cache.set('acct', 'b', 'fives', LONG, 10);
      assert.deepEqual(await Promise.all([cache.get('acct', 'a'), cache.get('acct', 'b')]), ['three', 'fives']);
    });

    it("a value larger than the account's share is not kept, nor the answer it would replace, and evicts nothing", async (s) => {
      const cache = s.store();
      await cache.set('acct', 'small', 'ss', LONG, 10);
      await cache.set('acct', 'big', 'b', LONG, 10);
      await cache.set('acct', 'big', 'B'.repeat(11), LONG, 10);
      assert.equal(await cache.get('acct', 'big'), null);
      assert.equal(await cache.get('acct', 'small'), 'ss');
      // The bytes of the answer that went are freed: 8 more fit beside 'ss'.
      await cache.set('acct', 'fill', 'f'.repeat(8), LONG, 10);
      assert.deepEqual(await Promise.all([cache.get('acct', 'small'), cache.get('acct', 'fill')]), ['ss', 'f'.repeat(8)]);
    });

    it("two gateways' prefixes never share answers; stores of one prefix do", async (s) => {
      await s.store('gw-a').set('acct', 'k1', 'a', LONG, NO_BOUND);
      assert.equal(await s.store('gw-b').get('acct', 'k1'), null);
      assert.equal(await s.store('gw-a').get('acct', 'k1'), 'a');
    });
  },
);
