import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessResponseCacheStore } from './response-cache-store.ts';

describe('InProcessResponseCacheStore', () => {
  it('an entry lives its TTL', async () => {
    const clock = { now: 10_000 };
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 1000, now: () => clock.now });
    await store.set('k', 'answer', 500);
    clock.now = 10_499;
    assert.equal(await store.get('k'), 'answer');
    clock.now = 10_501; // past its TTL (an entry is fresh up to and including start + TTL)
    assert.equal(await store.get('k'), null);
    assert.equal(store.totalBytes, 0);
  });

  it('bounded by the bytes of all entries: the least recently used go first; an entry over the whole bound is not kept', async () => {
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 10 });
    await store.set('a', 'xxxx', 60_000);
    await store.set('b', 'yyyy', 60_000);
    assert.equal(await store.get('a'), 'xxxx'); // a is now the most recently used
    await store.set('c', 'zzzz', 60_000);
    assert.equal(await store.get('b'), null);
    assert.equal(await store.get('a'), 'xxxx');
    assert.equal(await store.get('c'), 'zzzz');
    assert.equal(store.totalBytes, 8);
    await store.set('huge', 'h'.repeat(11), 60_000);
    assert.equal(await store.get('huge'), null);
    assert.equal(store.totalBytes, 8);
  });

  it('replacing an entry counts its bytes once', async () => {
    const store = new InProcessResponseCacheStore({ maxTotalBytes: 100 });
    await store.set('a', 'one', 60_000);
    await store.set('a', 'three', 60_000);
    assert.equal(store.totalBytes, 5);
    assert.equal(await store.get('a'), 'three');
  });
});
