import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IMAGE_ENTRY_OVERHEAD, ImageUrlStore } from './image-url-store.ts';

const O = IMAGE_ENTRY_OVERHEAD;

test('an image is served to its account only, until it expires', () => {
  let now = 1_000;
  const store = new ImageUrlStore({ ttlMs: 60_000, maxBytes: 64 * O, now: () => now });
  const id = store.put('acct-a', 'image/png', Buffer.from('png'));
  assert.match(id, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(store.get(id, 'acct-a')?.data.toString(), 'png');
  assert.equal(store.get(id, 'acct-b'), null);
  assert.equal(store.get('nope', 'acct-a'), null);
  now += 59_999;
  assert.notEqual(store.get(id, 'acct-a'), null);
  now += 2;
  assert.equal(store.get(id, 'acct-a'), null);
  assert.equal(store.size, 0, 'an expired image is dropped');
});

test("past its share an account's own oldest images go first; an image larger than the share is not kept", () => {
  // A store of 40 KiB: an account's share is 10 KiB, four images of 1.5 KiB and their overhead.
  const store = new ImageUrlStore({ ttlMs: 60_000, maxBytes: 40 * O, now: () => 0 });
  const image = (): Buffer => Buffer.alloc(1536);
  const ids = Array.from({ length: 5 }, () => store.put('a', 'image/png', image()));
  assert.equal(store.get(ids[0]!, 'a'), null, 'the oldest went');
  for (const id of ids.slice(1)) assert.notEqual(store.get(id, 'a'), null);
  assert.equal(store.size, 4 * (1536 + O));
  const huge = store.put('a', 'image/png', Buffer.alloc(10 * O));
  assert.equal(store.get(huge, 'a'), null);
  assert.equal(store.size, 4 * (1536 + O), 'nothing was dropped for an image that cannot fit');
});

test("one account filling the store never drops another account's images", () => {
  const store = new ImageUrlStore({ ttlMs: 60_000, maxBytes: 40 * O, now: () => 0 });
  const mine = store.put('victim', 'image/png', Buffer.alloc(100));
  for (let i = 0; i < 10_000; i++) store.put('flooder', 'image/png', Buffer.alloc(100));
  assert.notEqual(store.get(mine, 'victim'), null);
  assert.ok(store.accountSize('flooder') <= 10 * O, 'the flooder holds at most its share');
});
