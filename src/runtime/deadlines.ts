/**
 * Deadlines that are almost always disarmed before they expire (a request's, an upstream
 * attempt's), on one timer per duration instead of a `setTimeout` each (issue 29: per request a
 * Timeout object, at low concurrency a timer list made and dropped, and `unenroll` on the way
 * out). Deadlines of one duration expire in the order they were armed, so they form a list:
 * arming appends, disarming unlinks, and one timer is set for the list's head; when it fires,
 * every deadline due expires and the timer is set again for the next. An entry is the object
 * that owns the deadline (it extends Deadline), so arming one allocates nothing.
 *
 * The timer keeps the process alive while a deadline is armed, as a `setTimeout` would, and
 * not once the list is empty.
 */
export abstract class Deadline {
  /** When it expires (`performance.now()`); -1 while not armed. */
  dueAt = -1;
  prev: Deadline | null = null;
  next: Deadline | null = null;

  /** Runs once, when the deadline passes while armed. */
  protected abstract expire(): void;

  /** Called by the list only. */
  fire(): void {
    this.expire();
  }
}

class DeadlineList {
  private readonly ms: number;
  private head: Deadline | null = null;
  private tail: Deadline | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly onTimer = (): void => this.expireDue();

  constructor(ms: number) {
    this.ms = ms;
  }

  arm(d: Deadline): void {
    if (d.dueAt >= 0) this.disarm(d);
    d.dueAt = performance.now() + this.ms;
    d.prev = this.tail;
    d.next = null;
    if (this.tail === null) this.head = d;
    else this.tail.next = d;
    this.tail = d;
    // The timer, if any, is set for a deadline armed earlier: never later than this one.
    if (this.timer === null) this.timer = setTimeout(this.onTimer, this.ms);
    else if (this.head === d) this.timer.ref();
  }

  disarm(d: Deadline): void {
    if (d.dueAt < 0) return;
    if (d.prev === null) this.head = d.next;
    else d.prev.next = d.next;
    if (d.next === null) this.tail = d.prev;
    else d.next.prev = d.prev;
    d.prev = d.next = null;
    d.dueAt = -1;
    // Left to fire (and find nothing due), but no longer holding the process.
    if (this.head === null) this.timer?.unref();
  }

  private expireDue(): void {
    this.timer = null;
    // Timers may fire up to a millisecond early by this clock: what is due within it expires now.
    const now = performance.now() + 1;
    let d = this.head;
    while (d !== null && d.dueAt <= now) {
      this.disarm(d);
      d.fire();
      d = this.head;
    }
    if (d !== null && this.timer === null) this.timer = setTimeout(this.onTimer, Math.max(1, d.dueAt - performance.now()));
  }
}

const lists = new Map<number, DeadlineList>();

/** Arms `d` to expire in `ms` milliseconds (again, if it was armed). */
export function armDeadline(d: Deadline, ms: number): void {
  let list = lists.get(ms);
  if (list === undefined) lists.set(ms, (list = new DeadlineList(ms)));
  list.arm(d);
}

/** Disarms `d` (armed for `ms`); nothing when it is not armed. */
export function disarmDeadline(d: Deadline, ms: number): void {
  if (d.dueAt >= 0) lists.get(ms)?.disarm(d);
}
