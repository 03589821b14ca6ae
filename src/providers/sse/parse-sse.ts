// One SSE parser for every upstream. Incremental: feed it text chunks as they arrive;
// it calls back once per complete event. Handles \n, \r\n and \r line endings, comments,
// multi-line data, and events split across chunks. Lines are found with indexOf (native
// speed) rather than a character loop: this runs for every chunk of every stream.

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
    const buf = this.buffer.length === 0 ? chunk : this.buffer + chunk;
    const len = buf.length;
    const hasCr = buf.indexOf('\r') !== -1;
    let start = 0;
    while (start < len) {
      let end = buf.indexOf('\n', start);
      let next: number;
      if (hasCr) {
        const cr = buf.indexOf('\r', start);
        if (cr !== -1 && (end === -1 || cr < end)) {
          // A lone \r at the very end may be the first half of \r\n: wait for more.
          if (cr === len - 1) break;
          end = cr;
          next = buf.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
        } else {
          next = end + 1;
        }
      } else {
        next = end + 1;
      }
      if (end === -1) break;
      this.line(buf, start, end);
      start = next;
    }
    this.buffer = start === 0 ? buf : buf.slice(start);
  }

  /** The stream ended: dispatch a final event that had no blank line after it. */
  end(): void {
    if (this.buffer.length > 0) {
      this.line(this.buffer, 0, this.buffer.length);
      this.buffer = '';
    }
    if (this.data.length > 0) this.dispatch();
  }

  private line(buf: string, start: number, end: number): void {
    if (end === start) {
      if (this.data.length > 0 || this.event !== null) this.dispatch();
      return;
    }
    const first = buf.charCodeAt(start);
    if (first === 58 /* : */) return; // comment
    // The two fields that matter, checked without slicing the line first.
    if (first === 100 /* d */ && buf.startsWith('data', start)) {
      const after = start + 4;
      if (after === end) this.data.push('');
      else if (buf.charCodeAt(after) === 58) this.data.push(buf.slice(buf.charCodeAt(after + 1) === 32 ? after + 2 : after + 1, end));
      return;
    }
    if (first === 101 /* e */ && buf.startsWith('event', start)) {
      const after = start + 5;
      if (after === end) this.event = '';
      else if (buf.charCodeAt(after) === 58) this.event = buf.slice(buf.charCodeAt(after + 1) === 32 ? after + 2 : after + 1, end);
    }
  }

  private dispatch(): void {
    const ev: SseEvent = { event: this.event, data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') };
    this.event = null;
    this.data = [];
    this.onEvent(ev);
  }
}
