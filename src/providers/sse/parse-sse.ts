// One SSE parser for every upstream. Incremental: feed it text chunks as they arrive;
// it calls back once per complete event. Handles \n, \r\n and \r line endings, comments,
// multi-line data, and events split across chunks.
//
// Linear in what it is fed: each character is scanned once. A chunk's line ends are found
// with indexOf (native speed), each search starting where the last one stopped; the piece of
// a line still waiting for its end is kept as a list of pieces, never rescanned. An event
// (its data and event fields, and any line still arriving) may not exceed `maxEventChars`:
// past it, `push` throws SseEventTooLargeError and the parser is done (the caller drops the
// upstream connection).

export interface SseEvent {
  event: string | null;
  data: string;
}

/** The default cap on one event: 16 MiB of characters (an inline generated image fits). */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/** An event grew past the parser's cap. */
export class SseEventTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`an SSE event exceeded ${limit} characters`);
    this.limit = limit;
  }
}

export interface SseParserOptions {
  /** The largest event accepted, in characters (default MAX_SSE_EVENT_CHARS). */
  maxEventChars?: number;
}

const LF = 10;

export class SseParser {
  /** Pieces of a line whose end has not arrived yet. */
  private partial: string[] = [];
  private partialChars = 0;
  /** The last chunk ended with \r: a \n starting the next one belongs to it. */
  private afterCr = false;
  private event: string | null = null;
  private data: string[] = [];
  /** Characters of the current event's fields so far. */
  private eventChars = 0;
  private readonly maxEventChars: number;
  private readonly onEvent: (ev: SseEvent) => void;

  constructor(onEvent: (ev: SseEvent) => void, options: SseParserOptions = {}) {
    this.onEvent = onEvent;
    this.maxEventChars = options.maxEventChars ?? MAX_SSE_EVENT_CHARS;
  }

  push(chunk: string): void {
    const len = chunk.length;
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (len > 0 && chunk.charCodeAt(0) === LF) start = 1;
    }
    // The next \n and \r at or after `start`, each searched again only once passed.
    let lf = chunk.indexOf('\n', start);
    let cr = chunk.indexOf('\r', start);
    while (start < len) {
      if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      this.completeLine(chunk, start, end);
      if (end === cr) {
        if (end + 1 === len) this.afterCr = true;
        start = end + 1 < len && chunk.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
    if (start < len) {
      const rest = start === 0 ? chunk : chunk.slice(start);
      this.partial.push(rest);
      this.partialChars += rest.length;
      if (this.eventChars + this.partialChars > this.maxEventChars) this.tooLarge();
    }
  }

  /** The stream ended: dispatch a final event that had no blank line after it. */
  end(): void {
    if (this.partialChars > 0) {
      const line = this.takePartial('', 0, 0);
      this.line(line, 0, line.length);
    }
    if (this.data.length > 0) this.dispatch();
  }

  /** A line ends at `end` in `chunk`, with whatever of it came in earlier chunks. */
  private completeLine(chunk: string, start: number, end: number): void {
    if (this.partialChars === 0) {
      this.line(chunk, start, end);
      return;
    }
    const line = this.takePartial(chunk, start, end);
    this.line(line, 0, line.length);
  }

  private takePartial(chunk: string, start: number, end: number): string {
    if (end > start) this.partial.push(chunk.slice(start, end));
    const line = this.partial.length === 1 ? this.partial[0]! : this.partial.join('');
    this.partial = [];
    this.partialChars = 0;
    return line;
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
      let value: string | undefined;
      if (after === end) value = '';
      else if (buf.charCodeAt(after) === 58) value = buf.slice(buf.charCodeAt(after + 1) === 32 ? after + 2 : after + 1, end);
      if (value !== undefined) this.addData(value);
      return;
    }
    if (first === 101 /* e */ && buf.startsWith('event', start)) {
      const after = start + 5;
      if (after === end) this.event = '';
      else if (buf.charCodeAt(after) === 58) this.event = buf.slice(buf.charCodeAt(after + 1) === 32 ? after + 2 : after + 1, end);
    }
  }

  private addData(value: string): void {
    this.eventChars += value.length + 1;
    if (this.eventChars > this.maxEventChars) this.tooLarge();
    this.data.push(value);
  }

  private tooLarge(): never {
    this.partial = [];
    this.partialChars = 0;
    this.data = [];
    throw new SseEventTooLargeError(this.maxEventChars);
  }

  private dispatch(): void {
    const ev: SseEvent = { event: this.event, data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') };
    this.event = null;
    this.data = [];
    this.eventChars = 0;
    this.onEvent(ev);
  }
}
