import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImageUrlStore } from './image-url-store.ts';

test('an image is served to its account only, until it expires', () => {
  let now = 1_000;
  const store = new ImageUrlStore({ ttlMs: 60_000, maxBytes: 1024, now: () => now });
  const id = store.put('acct-a', 'image/png', Buffer.from('png'));
  assert.match(id, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(store.get(id, 'acct-a')?.data.toString(), 'png');
  assert.equal(store.get(id, 'acct-b'), null);
  assert.equal(store.get('nope', 'acct-a'), null);
  now += 59_999;
  assert.notEqual(store.get(id, 'acct-a'), null);
  now += 1;
  assert.equal(store.get(id, 'acct-a'), null);
  assert.equal(store.size, 0, 'an expired image is dropped');
});

test('past the byte cap the oldest images go first; an image larger than the cap is not kept', () => {
  const store = new ImageUrlStore({ ttlMs: 60_000, maxBytes: 10, now: () => 0 });
  const first = store.put('a', 'image/png', Buffer.alloc(4));
  const second = store.put('a', 'image/png', Buffer.alloc(4));
  const third = store.put('a', 'image/png', Buffer.alloc(4));
  assert.equal(store.get(first, 'a'), null);
  assert.notEqual(store.get(second, 'a'), null);
  assert.notEqual(store.get(third, 'a'), null);
  assert.equal(store.size, 8);
  const huge = store.put('a', 'image/png', Buffer.alloc(11));
  assert.equal(store.get(huge, 'a'), null);
  assert.equal(store.size, 8, 'nothing was dropped for an image that cannot fit');
});
