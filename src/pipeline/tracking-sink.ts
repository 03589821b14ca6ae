import type { FinishReason } from '../canonical/finish-reason.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { Usage } from '../canonical/usage.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';
import type { PlannedAttempt } from '../routing/attempt.ts';

/**
 * Sits between the executor and a dialect's sink and remembers what billing and the
 * generation record need: usage, finish reason, upstream id, and how much text went
 * out (to estimate usage when the upstream never reported it, e.g. a cancelled stream).
 */
export class TrackingSink implements ExecutionSink {
  readonly inner: ExecutionSink;
  usage: Usage | null = null;
  finish: FinishReason | null = null;
  upstreamId: string | null = null;
  outputChars = 0;

  constructor(inner: ExecutionSink) {
    this.inner = inner;
  }

  get committed(): boolean {
    return this.inner.committed;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.usage = null;
    this.finish = null;
    this.upstreamId = null;
    this.outputChars = 0;
    this.inner.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
      case 'reasoning-delta':
        this.outputChars += part.text.length;
        break;
      case 'tool-call-delta':
        this.outputChars += part.argumentsDelta.length;
        break;
      case 'usage':
        this.usage = part.usage;
        break;
      case 'finish':
        this.finish = part.reason;
        break;
      case 'stream-start':
        if (part.id !== undefined) this.upstreamId = part.id;
        break;
      default:
        break;
    }
    this.inner.part(part);
  }

  waitForDrain(): Promise<void> | null {
    return this.inner.waitForDrain();
  }
}
