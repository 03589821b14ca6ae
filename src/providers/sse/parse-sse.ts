// One SSE parser for every upstream. Incremental: feed it text chunks as they arrive;
// it calls back once per complete event. Handles \n, \r\n and \r line endings, comments,
// multi-line data, and events split across chunks.

export interface SseEvent {
  event: string | null;
  data: string;
}

export class SseParser {
  private buffer = '';
  private event: string | null = null;
  private data: string[] = [];
  private readonly onEvent: (ev: SseEvent) => void;

  constructor(onEvent: (ev: SseEvent) => void) {
    this.onEvent = onEvent;
  }

  push(chunk: string): void {
    let buf = this.buffer.length === 0 ? chunk : this.buffer + chunk;
    let start = 0;
    const len = buf.length;
    for (let i = 0; i < len; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (c === 13 && i === len - 1) break;
      this.line(buf.slice(start, i));
      if (c === 13 && buf.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.buffer = start === 0 ? buf : buf.slice(start);
    buf = '';
  }

  /** The stream ended: dispatch a final event that had no blank line after it. */
  end(): void {
    if (this.buffer.length > 0) {
      this.line(this.buffer);
      this.buffer = '';
    }
    if (this.data.length > 0) this.dispatch();
  }

  private line(line: string): void {
    if (line.length === 0) {
      if (this.data.length > 0 || this.event !== null) this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }

  private dispatch(): void {
    const ev: SseEvent = { event: this.event, data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') };
    this.event = null;
    this.data = [];
    this.onEvent(ev);
  }
}
