import type { ServerResponse } from 'node:http';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Writes an SSE response on the raw Node response. The events encoded from one upstream
 * read go out in one socket write (flushed when the executor asks about backpressure, or
 * at the end of the tick): fewer writes and chunked-encoding frames, no added delay.
 * Backpressure is respected: a write that fills the socket buffer makes `waitForDrain`
 * return a promise, which pauses the upstream read until the client catches up.
 */
export class SseWriter {
  private readonly res: ServerResponse;
  private blocked = false;
  private pending = '';
  private flushScheduled = false;
  private readonly flushBound = () => this.flush();
  started = false;

  constructor(res: ServerResponse) {
    this.res = res;
  }

  start(extraHeaders: Record<string, string>): void {
    this.started = true;
    this.res.writeHead(200, { ...SSE_HEADERS, ...extraHeaders });
  }

  /** Nothing was streamed yet: answer with a plain JSON body and this status instead. */
  sendJson(status: number, headers: Record<string, string>, body: unknown): void {
    this.started = true;
    const text = JSON.stringify(body);
    this.res.writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    this.res.end(text);
  }

  write(text: string): void {
    if (text.length === 0 || this.res.destroyed) return;
    this.pending += text;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushBound);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.res.destroyed) return;
    const text = this.pending;
    this.pending = '';
    if (!this.res.write(text)) this.blocked = true;
  }

  waitForDrain(): Promise<void> | null {
    this.flush();
    if (!this.blocked || this.res.destroyed) return null;
    this.blocked = false;
    const res = this.res;
    // Settles on drain, or on close (client gone) so the reader is never left waiting.
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  end(text = ''): void {
    if (this.res.destroyed) return;
    const all = this.pending + text;
    this.pending = '';
    this.res.end(all);
  }
}
