import type { StreamPart } from '../canonical/stream-part.ts';
import type { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { PlannedAttempt } from '../catalog/types.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';

/** Passes every part on, an error part's error scrubbed of upstream credentials first (mid-stream errors). */
export class ScrubbingSink implements ExecutionSink {
  private readonly inner: ExecutionSink;
  private readonly scrubber: SecretScrubber;

  constructor(inner: ExecutionSink, scrubber: SecretScrubber) {
    this.inner = inner;
    this.scrubber = scrubber;
  }

  get committed(): boolean {
    return this.inner.committed;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.inner.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    this.inner.part(part.type === 'error' ? { type: 'error', error: this.scrubber.error(part.error) } : part);
  }

  waitForDrain(): Promise<void> | null {
    return this.inner.waitForDrain();
  }
}
