import { GatewayError } from '../errors/gateway-error.ts';

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

/** The answer a client gets when the shared state cannot answer: 503, retry in a second. */
export function sharedStateUnavailable(err: SharedStateUnavailable): GatewayError {
  return new GatewayError(
    'shared_state_unavailable',
    `The gateway cannot reach its shared ${err.store === 'redis' ? 'state (Redis)' : 'database (Postgres)'} right now, so it cannot hold credits or count rate limits and is not serving model calls. Retry later.`,
    { headers: { 'retry-after': '1' }, metadata: { store: err.store } },
  );
}
