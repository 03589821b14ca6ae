import assert from 'node:assert/strict';
import { test } from 'node:test';
import { armDeadline, Deadline, disarmDeadline } from './deadlines.ts';

class Recorded extends Deadline {
  readonly name: string;
  readonly fired: string[];
  readonly onFire: () => void;

  constructor(name: string, fired: string[], onFire: () => void = () => {}) {
    super();
    this.name = name;
    this.fired = fired;
    this.onFire = onFire;
  }

  protected expire(): void {
    this.fired.push(this.name);
    this.onFire();
  }
}

test('deadlines of one duration expire in the order armed, never before their time; a disarmed one never', async () => {
  const fired: string[] = [];
  const armedAt = performance.now();
  let last = (): void => {};
  const done = new Promise<void>((resolve) => (last = resolve));
  const a = new Recorded('a', fired);
  const b = new Recorded('b', fired);
  const c = new Recorded('c', fired, last);
  armDeadline(a, 40);
  armDeadline(b, 40);
  armDeadline(c, 40);
  disarmDeadline(b, 40);
  await done;
  assert.deepEqual(fired, ['a', 'c']);
  assert.ok(performance.now() - armedAt >= 39, 'not before the duration passed');
  assert.equal(b.dueAt, -1);
});

test('a deadline armed after its list emptied expires at its own time, not when the list timer was set for', async () => {
  const fired: string[] = [];
  const first = new Recorded('first', fired);
  armDeadline(first, 30);
  disarmDeadline(first, 30);
  let resolve = (): void => {};
  const done = new Promise<void>((r) => (resolve = r));
  let armedAt = 0;
  const second = new Recorded('second', fired, resolve);
  // 20 ms later (a deadline of another duration says when), the list's timer still set for `first`.
  armDeadline(
    new Recorded('later', [], () => {
      armedAt = performance.now();
      armDeadline(second, 30);
    }),
    20,
  );
  await done;
  assert.deepEqual(fired, ['second']);
  assert.ok(performance.now() - armedAt >= 29, 'its own 30 ms, not what was left of the first');
});

test('re-arming moves a deadline to its new time; an expiry that arms another is safe', async () => {
  const fired: string[] = [];
  let resolve = (): void => {};
  const done = new Promise<void>((r) => (resolve = r));
  const chained = new Recorded('chained', fired, resolve);
  const x = new Recorded('x', fired, () => armDeadline(chained, 10));
  const y = new Recorded('y', fired);
  armDeadline(x, 10);
  armDeadline(y, 10);
  armDeadline(x, 10); // now after y
  await done;
  assert.deepEqual(fired, ['y', 'x', 'chained']);
});

test('durations have lists of their own', async () => {
  const fired: string[] = [];
  let resolve = (): void => {};
  const done = new Promise<void>((r) => (resolve = r));
  armDeadline(new Recorded('long', fired, resolve), 60);
  armDeadline(new Recorded('short', fired), 15);
  await done;
  assert.deepEqual(fired, ['short', 'long']);
});
