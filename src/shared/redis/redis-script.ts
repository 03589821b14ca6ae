import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis-connection.ts';

/**
 * A Lua script run with EVALSHA, loaded on first use and again whenever Redis answers
 * NOSCRIPT (a restarted or flushed server forgets its scripts). Redis runs a script
 * atomically: no other command of any client runs in between.
 */
export class RedisScript {
  readonly source: string;
  readonly sha1: string;

  constructor(source: string) {
    this.source = source;
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  async run<T>(conn: RedisConnection, keys: readonly string[], args: readonly string[]): Promise<T> {
    const call = ['EVALSHA', this.sha1, String(keys.length), ...keys, ...args];
    try {
      return await conn.send<T>(call);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      await conn.send<string>(['SCRIPT', 'LOAD', this.source]);
      return await conn.send<T>(call);
    }
  }
}
