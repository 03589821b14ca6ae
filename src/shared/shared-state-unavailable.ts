/**
 * The shared state (Redis or Postgres) cannot answer right now: unreachable, timed out, or
 * reconnecting. Callers fail closed on it (a paid request is refused with 503, never served
 * unmetered); the client reconnects by itself, so the next call may succeed.
 */
export class SharedStateUnavailable extends Error {
  readonly store: 'redis' | 'postgres';

  constructor(store: 'redis' | 'postgres', message: string, options?: { cause?: unknown }) {
    super(`${store} is unavailable: ${message}`, options);
    this.name = 'SharedStateUnavailable';
    this.store = store;
  }
}
