// AWS event-stream framing (`application/vnd.amazon.eventstream`, reference §5): binary
// frames `[total u32][headers u32][prelude crc][headers][payload][message crc]`. This splits
// the byte stream into frames (a frame may arrive across chunks, or several in one) and
// hands each to @smithy/eventstream-codec, which checks both CRCs and reads the headers.
// Each frame reaches the caller as an SseEvent, so stream decoders keep one interface:
// an `event` frame as its `:event-type` with the payload as `data`; an `exception` frame
// as `exception:<:exception-type>`; an `error` frame as `error:<:error-code>` with its
// `:error-message` as data.

import { createRequire } from 'node:module';
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { SseEventTooLargeError, type SseEvent } from '../sse/parse-sse.ts';

/** The default cap on one frame: 16 MiB, as the SSE parser's on one event. */
export const MAX_EVENTSTREAM_FRAME_BYTES = 16 * 1024 * 1024;
/** total length, headers length, prelude CRC. */
const PRELUDE_BYTES = 12;

const toUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
const fromUtf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

const require = createRequire(import.meta.url);
let codecClass: typeof EventStreamCodec | null = null;

/**
 * The codec (@smithy/eventstream-codec and its CRC code), loaded by the first event stream,
 * not at start: a gateway without a Bedrock provider never loads it. `preloadEventStreamCodec`
 * loads it ahead, off the path that needs it at once (the Bedrock adapter calls it while it
 * signs a request), so the parser's synchronous require is then a cache hit.
 */
function codecOf(): typeof EventStreamCodec {
  codecClass ??= (require('@smithy/eventstream-codec') as typeof import('@smithy/eventstream-codec')).EventStreamCodec;
  return codecClass;
}

export async function preloadEventStreamCodec(): Promise<void> {
  if (codecClass !== null) return;
  codecClass = (await import('@smithy/eventstream-codec')).EventStreamCodec;
}

/** A frame that does not decode (bad CRC, bad lengths): the stream cannot be trusted past it. */
export class EventStreamFrameError extends Error {}

export class AwsEventStreamParser {
  private readonly codec = new (codecOf())(toUtf8, fromUtf8);
  private readonly onEvent: (event: SseEvent) => void;
  private readonly maxFrameBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(onEvent: (event: SseEvent) => void, maxFrameBytes = MAX_EVENTSTREAM_FRAME_BYTES) {
    this.onEvent = onEvent;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Feeds bytes; calls back once per whole frame. Throws on a frame over the cap or one that does not decode. */
  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    while (this.pendingBytes >= PRELUDE_BYTES) {
      const head = this.pending.length === 1 ? this.pending[0]! : this.joined();
      const total = head.readUInt32BE(0);
      if (total > this.maxFrameBytes) throw new SseEventTooLargeError(this.maxFrameBytes);
      if (total < PRELUDE_BYTES + 4) throw new EventStreamFrameError(`an event-stream frame declared ${total} bytes`);
      if (this.pendingBytes < total) return;
      const frame = head.subarray(0, total);
      const rest = head.subarray(total);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.emitFrame(frame);
    }
  }

  /** The body ended: bytes of an unfinished frame mean the stream was cut. */
  end(): void {
    if (this.pendingBytes > 0)
      throw new EventStreamFrameError(`the event stream ended inside a frame (${this.pendingBytes} bytes left over)`);
  }

  private joined(): Buffer {
    const all = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [all];
    return all;
  }

  private emitFrame(frame: Buffer): void {
    let message;
    try {
      message = this.codec.decode(frame);
    } catch (err) {
      throw new EventStreamFrameError(`an event-stream frame did not decode: ${(err as Error).message}`);
    }
    const header = (name: string): string => {
      const h = message.headers[name];
      return h !== undefined && h.type === 'string' ? h.value : '';
    };
    const data = toUtf8(message.body);
    switch (header(':message-type')) {
      case 'event':
        this.onEvent({ event: header(':event-type'), data });
        return;
      case 'exception':
        this.onEvent({ event: `exception:${header(':exception-type')}`, data });
        return;
      case 'error':
        this.onEvent({ event: `error:${header(':error-code')}`, data: header(':error-message') || data });
        return;
      default:
        // Frames of message types added later carry nothing this reader knows.
        return;
    }
  }
}
