import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlight } from './in-flight.ts';

test('idle() resolves true once the last call leaves, false when the timeout comes first', async () => {
  const f = new InFlight();
  assert.equal(await f.idle(0), true, 'nothing runs');
  const a = new AbortController();
  const leaveA = f.enter(a);
  const leaveB = f.enter(new AbortController());
  assert.equal(f.count, 2);
  assert.equal(await f.idle(1), false, 'still running at the timeout');
  const idle = f.idle(60_000);
  leaveA();
  leaveA(); // leaving twice counts once
  assert.equal(f.count, 1);
  leaveB();
  assert.equal(await idle, true);
});

test('cancelAll() aborts every running call; draining is sticky', () => {
  const f = new InFlight();
  const a = new AbortController();
  const b = new AbortController();
  f.enter(a);
  const leaveB = f.enter(b);
  leaveB();
  assert.equal(f.draining, false);
  f.startDraining();
  f.startDraining();
  assert.equal(f.draining, true);
  f.cancelAll();
  assert.equal(a.signal.aborted, true);
  assert.equal(b.signal.aborted, false, 'a call that left is not cancelled');
});
