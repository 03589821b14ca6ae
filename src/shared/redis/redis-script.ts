import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection.ts';

/**
 * A Lua script: sent whole (EVAL) the first time a connection runs it, which also has Redis
 * cache it, then by its digest (EVALSHA); sent whole again whenever Redis answers NOSCRIPT (a
 * restarted or flushed server forgets its scripts). The first run is one command like any
 * other, so it keeps its place among the connection's commands: a script run and not awaited
 * (a sticky route remembered) is done before any command sent after it (the next turn's
 * lookup). Redis runs a script atomically: no other command of any client runs in between.
 */
export class RedisScript {
  readonly source: string;
  readonly sha1: string;
  /** Connections that have run it whole once (their server has it cached, unless it forgot). */
  private readonly sent = new WeakSet<RedisConnection>();

  constructor(source: string) {
    this.source = source;
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run<T>(conn: RedisConnection, keys: readonly string[], args: readonly string[]): Promise<T> {
    if (!this.sent.has(conn)) return this.runWhole<T>(conn, keys, args);
    try {
      return await conn.send<T>(['EVALSHA', this.sha1, String(keys.length), ...keys, ...args]);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.runWhole<T>(conn, keys, args);
    }
  }

  private async runWhole<T>(conn: RedisConnection, keys: readonly string[], args: readonly string[]): Promise<T> {
    const out = await conn.send<T>(['EVAL', this.source, String(keys.length), ...keys, ...args]);
    this.sent.add(conn);
    return out;
  }
}
