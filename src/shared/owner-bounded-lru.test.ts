import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OwnerBoundedLru } from './owner-bounded-lru.ts';

describe('OwnerBoundedLru', () => {
  it("an owner past its share evicts its own least recently used entries, never another's", () => {
    const lru = new OwnerBoundedLru<string>({ maxTotal: 100, maxPerOwner: 25, size: (v) => v.length });
    lru.set('a', 'a1', 'x'.repeat(10), 60_000);
    for (let i = 0; i < 50; i++) lru.set('b', `b${i}`, 'y'.repeat(10), 60_000);
    assert.equal(lru.get('a', 'a1'), 'x'.repeat(10));
    assert.equal(lru.ownerSize('b'), 20);
    assert.equal(lru.get('b', 'b49'), 'y'.repeat(10));
    assert.equal(lru.get('b', 'b48'), 'y'.repeat(10));
    assert.equal(lru.get('b', 'b47'), undefined);
    assert.equal(lru.totalSize, 30);
  });

  it("an owner's hit makes the entry its most recently used; another owner cannot read it", () => {
    const lru = new OwnerBoundedLru<number>({ maxTotal: 10, maxPerOwner: 2 });
    lru.set('a', 'one', 1, 60_000);
    lru.set('a', 'two', 2, 60_000);
    assert.equal(lru.get('b', 'one'), undefined);
    assert.equal(lru.get('a', 'one'), 1);
    lru.set('a', 'three', 3, 60_000);
    assert.equal(lru.get('a', 'two'), undefined);
    assert.deepEqual([lru.get('a', 'one'), lru.get('a', 'three'), lru.count], [1, 3, 2]);
  });

  it('when the whole is full (enough owners at their share), the least recently used of any owner goes; the accounting follows', () => {
    const lru = new OwnerBoundedLru<number>({ maxTotal: 4, maxPerOwner: 2 });
    lru.set('a', 'a1', 1, 60_000);
    lru.set('b', 'b1', 1, 60_000);
    lru.set('c', 'c1', 1, 60_000);
    lru.set('c', 'c2', 1, 60_000);
    lru.set('d', 'd1', 1, 60_000);
    assert.equal(lru.get('a', 'a1'), undefined);
    assert.equal(lru.ownerSize('a'), 0);
    assert.equal(lru.count, 4);
  });

  it('expired entries leave the accounting; a replaced entry counts once; one over the share is not kept', () => {
    const clock = { now: 1000 };
    const lru = new OwnerBoundedLru<string>({ maxTotal: 100, maxPerOwner: 10, size: (v) => v.length, now: () => clock.now });
    lru.set('a', 'k', 'abc', 100);
    lru.set('a', 'k', 'abcde', 100);
    assert.equal(lru.ownerSize('a'), 5);
    clock.now = 1200;
    assert.equal(lru.get('a', 'k'), undefined);
    assert.equal(lru.ownerSize('a'), 0);
    assert.equal(lru.set('a', 'big', 'x'.repeat(11), 100), false);
    assert.equal(lru.totalSize, 0);
  });
});
