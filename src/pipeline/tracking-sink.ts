import type { FinishReason } from '../canonical/finish-reason.ts';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { Usage } from '../canonical/usage.ts';
import type { TaskResult } from '../canonical/task.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';
import type { PlannedAttempt } from '../catalog/types.ts';

/**
 * Sits between the executor and a dialect's sink and remembers what billing and the
 * generation record need: usage, finish reason, upstream id, and what the upstream
 * produced (to estimate usage when the upstream never reported it, e.g. a cancelled stream).
 */
export class TrackingSink implements ExecutionSink {
  readonly inner: ExecutionSink;
  usage: Usage | null = null;
  finish: FinishReason | null = null;
  upstreamId: string | null = null;
  /** Answer text, tool names and arguments, as produced (the client may not have seen all of it). */
  readonly output: string[] = [];
  /** Reasoning text the upstream showed. */
  readonly reasoning: string[] = [];
  /** A task request's result (embeddings, images, audio, a transcript), once it came. */
  taskResult: TaskResult | null = null;

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
    this.taskResult = null;
    this.output.length = 0;
    this.reasoning.length = 0;
    this.inner.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        this.output.push(part.text);
        break;
      case 'reasoning-delta':
        this.reasoning.push(part.text);
        break;
      case 'tool-call-start':
        this.output.push(part.name);
        break;
      case 'tool-call-delta':
        this.output.push(part.argumentsDelta);
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
      case 'task-result':
        this.taskResult = part.result;
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
