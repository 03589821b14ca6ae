import { StreamFolder } from '../canonical/fold-stream-parts.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';

/** The sink of a non-streamed request: folds the parts into one answer; never commits early. */
export class FoldingSink implements ExecutionSink {
  folder = new StreamFolder();
  readonly committed = false;

  beginAttempt(): void {
    this.folder = new StreamFolder();
  }

  part(part: StreamPart): void {
    this.folder.push(part);
  }

  waitForDrain(): null {
    return null;
  }
}
