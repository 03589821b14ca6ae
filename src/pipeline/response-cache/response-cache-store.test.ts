import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessResponseCacheStore } from './response-cache-store.ts';

describe('InProcessResponseCacheStore', () => {
  it('an entry lives its TTL', async () => {
    const clock = { now: 10_000 };
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 1000, now: () => clock.now });
    await store.set('acct', 'k', 'answer', 500, Infinity);
    clock.now = 10_499;
    assert.equal(await store.get('acct', 'k'), 'answer');
    clock.now = 10_501; // past its TTL (an entry is fresh up to and including start + TTL)
    assert.equal(await store.get('acct', 'k'), null);
    assert.equal(store.totalBytes, 0);
  });

  it('bounded by the bytes of all entries: the least recently used go first; an entry over the whole bound is not kept', async () => {
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 10 });
    await store.set('acct', 'a', 'xxxx', 60_000, Infinity);
    await store.set('acct', 'b', 'yyyy', 60_000, Infinity);
    assert.equal(await store.get('acct', 'a'), 'xxxx'); // a is now the most recently used
    await store.set('acct', 'c', 'zzzz', 60_000, Infinity);
    assert.equal(await store.get('acct', 'b'), null);
    assert.equal(await store.get('acct', 'a'), 'xxxx');
    assert.equal(await store.get('acct', 'c'), 'zzzz');
    assert.equal(store.totalBytes, 8);
    await store.set('acct', 'huge', 'h'.repeat(11), 60_000, Infinity);
    assert.equal(await store.get('acct', 'huge'), null);
    assert.equal(store.totalBytes, 8);
  });

  it('replacing an entry counts its bytes once', async () => {
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 100 });
    await store.set('acct', 'a', 'one', 60_000, Infinity);
    await store.set('acct', 'a', 'three', 60_000, Infinity);
    assert.equal(store.totalBytes, 5);
    assert.equal(await store.get('acct', 'a'), 'three');
  });

  it('one account past its share evicts only its own entries', async () => {
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 100 });
    await store.set('a', 'mine', 'x'.repeat(10), 60_000, 20);
    for (let i = 0; i < 30; i++) await store.set('b', `flood${i}`, 'y'.repeat(10), 60_000, 20);
    assert.equal(await store.get('a', 'mine'), 'x'.repeat(10));
    assert.equal(store.accountBytes('b'), 20);
    assert.equal(await store.get('b', 'mine'), null, "another account's key is not its");
  });
});
