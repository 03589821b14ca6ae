/**
 * "This changed: drop what you cached about it." A key (revoked, limit changed), an account
 * (deactivated, credits granted, tier changed), or everything.
 */
export type Invalidation = { kind: 'key'; keyHash: string; accountId?: string } | { kind: 'account'; accountId: string } | { kind: 'all' };

export type InvalidationListener = (message: Invalidation) => void;

/**
 * Tells every gateway instance (and this one) that cached state is stale. In one process,
 * InProcessInvalidationBus; in a fleet, RedisInvalidationBus (Redis pub/sub): a message
 * published through any instance or the CLI reaches every subscribed instance.
 */
export interface InvalidationBus {
  publish(message: Invalidation): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: InvalidationListener): () => void;
  close(): Promise<void>;
}

/** The bus of a single process: listeners are called in the same tick as publish. */
export class InProcessInvalidationBus implements InvalidationBus {
  private readonly listeners = new Set<InvalidationListener>();

  async publish(message: Invalidation): Promise<void> {
    for (const listener of this.listeners) listener(message);
  }

  subscribe(listener: InvalidationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

/** Parses a message off the wire; anything unrecognised counts as 'all' (dropping too much is safe, too little is not). */
export function parseInvalidation(text: string): Invalidation {
  try {
    const m = JSON.parse(text) as Record<string, unknown>;
    if (m.kind === 'key' && typeof m.keyHash === 'string') {
      return typeof m.accountId === 'string'
        ? { kind: 'key', keyHash: m.keyHash, accountId: m.accountId }
        : { kind: 'key', keyHash: m.keyHash };
    }
    if (m.kind === 'account' && typeof m.accountId === 'string') return { kind: 'account', accountId: m.accountId };
  } catch {
    // falls through
  }
  return { kind: 'all' };
}
