import { parseInvalidation, type Invalidation, type InvalidationBus, type InvalidationListener } from '../invalidation-bus.ts';
import type { RedisConnection } from './redis-connection.ts';
import { unavailable } from './redis-connection.ts';

/**
 * Invalidation over Redis pub/sub: `publish` goes out on the shared connection; a second,
 * dedicated connection listens. Pub/sub delivers only to those connected at the time, so
 * when the listening connection comes back after an outage, listeners get an `all`
 * (whatever was missed meanwhile is covered by dropping every cache).
 */
export class RedisInvalidationBus implements InvalidationBus {
  private readonly publisher: RedisConnection;
  private readonly subscriber: RedisConnection;
  private readonly channel: string;
  private readonly listeners = new Set<InvalidationListener>();
  private lostConnection = false;

  private constructor(publisher: RedisConnection, channel: string) {
    this.publisher = publisher;
    this.subscriber = publisher.duplicate();
    this.channel = channel;
  }

  /** Subscribes before returning, so nothing published after `open` resolves is missed. */
  static async open(publisher: RedisConnection, channel = 'sy:invalidate'): Promise<RedisInvalidationBus> {
    const bus = new RedisInvalidationBus(publisher, channel);
    const client = bus.subscriber.client;
    client.on('end', () => (bus.lostConnection = true));
    client.on('reconnecting', () => (bus.lostConnection = true));
    client.on('ready', () => {
      if (!bus.lostConnection) return;
      bus.lostConnection = false;
      bus.deliver({ kind: 'all' });
    });
    await bus.subscriber.connect(); // bounded: with Redis down, subscribe below fails fast
    try {
      await client.subscribe(channel, (text: string) => bus.deliver(parseInvalidation(text)));
    } catch (err) {
      await bus.subscriber.close();
      throw unavailable(err);
    }
    return bus;
  }

  async publish(message: Invalidation): Promise<void> {
    await this.publisher.send(['PUBLISH', this.channel, JSON.stringify(message)]);
  }

  subscribe(listener: InvalidationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.subscriber.close();
  }

  private deliver(message: Invalidation): void {
    for (const listener of this.listeners) listener(message);
  }
}
