import type { StreamPart } from '../canonical/stream-part.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { UpstreamAttempt } from '../providers/http/call-upstream.ts';
import type { ExecutionSink } from './execute-attempts.ts';

const CONTENT_PARTS: ReadonlySet<StreamPart['type']> = new Set([
  'text-delta',
  'reasoning-delta',
  'reasoning-signature',
  'reasoning-redacted',
  'tool-call-start',
  'audio-delta',
  'image-output',
]);

/**
 * State of one attempt: intercepts error parts so that routing can fail over, and notes
 * what health needs (when the first content came, how many tokens the upstream reported).
 * The transport (providers/http/call-upstream.ts) reports into it.
 */
export class AttemptRun implements UpstreamAttempt {
  readonly sink: ExecutionSink;
  error: GatewayError | null = null;
  status = 0;
  /** When the first content part arrived (the executor's clock), or -1. */
  firstContentAt = -1;
  /** Output tokens from the upstream's usage, or -1 when it sent none. */
  outputTokens = -1;
  /** Input and output tokens from the upstream's usage (a credential's tpm), 0 when it sent none. */
  totalTokens = 0;
  /** The upstream's response headers (call-upstream.ts). */
  upstreamHeaders?: Record<string, string | string[] | undefined>;
  /** The adapter could not encode the request for this endpoint: nothing was sent. */
  notSent = false;
  /** Milliseconds spent waiting on the upstream (call-upstream.ts's `UpstreamAttempt.waitedMs`). */
  waitedMs = 0;
  readonly emit: (part: StreamPart) => void;

  constructor(sink: ExecutionSink, now: () => number) {
    this.sink = sink;
    this.emit = (part) => {
      if (this.error !== null) return;
      if (part.type === 'error') {
        this.error = part.error;
        return;
      }
      if (this.firstContentAt < 0 && CONTENT_PARTS.has(part.type)) this.firstContentAt = now();
      else if (part.type === 'usage') {
        this.outputTokens = part.usage.output;
        this.totalTokens = part.usage.input + part.usage.output;
      }
      sink.part(part);
    };
  }

  /** True once the answer has begun for the client: its first content part, or any byte sent. */
  get answerBegun(): boolean {
    return this.firstContentAt >= 0 || this.sink.committed;
  }

  waitForDrain(): Promise<void> | null {
    return this.sink.waitForDrain();
  }

  fail(error: GatewayError): void {
    if (this.error === null) this.error = error;
  }
}
