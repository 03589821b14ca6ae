import { StreamFolder } from '../../canonical/fold-stream-parts.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { PlannedAttempt } from '../../catalog/types.ts';
import type { ExecutionSink } from '../../routing/execute-attempts.ts';

/**
 * One model turn of a request that runs MCP tools, between the executor and the answer's
 * sink (the dialect's stream, or the fold of a whole answer). It keeps the turn's own fold
 * (the next turn's assistant message, the calls to run) and passes on what the client is
 * to see: not the calls of MCP tools (the loop shows them as server tool calls), not the
 * turn's finish and usage (the loop sends one of each, for the whole answer), and the
 * stream's start only once.
 *
 * `live` (a stream): parts go on as they come, and the turn is committed once one did (a
 * failed attempt before that may fail over, as any request). Otherwise they are held and
 * handed on by `flush()` once the turn succeeded, so a failed attempt leaves nothing.
 */
export class McpTurnSink implements ExecutionSink {
  folder = new StreamFolder();
  private readonly outer: ExecutionSink;
  private readonly isMcpTool: (name: string) => boolean;
  private readonly live: boolean;
  private readonly first: boolean;
  /** Parts for the client before the turn's first one (the tool lists, on the first turn). */
  private prelude: StreamPart[];
  private held: StreamPart[] = [];
  private forwarded = false;
  private readonly mcpIndexes = new Set<number>();

  constructor(outer: ExecutionSink, isMcpTool: (name: string) => boolean, opts: { live: boolean; first: boolean; prelude?: StreamPart[] }) {
    this.outer = outer;
    this.isMcpTool = isMcpTool;
    this.live = opts.live;
    this.first = opts.first;
    this.prelude = opts.prelude ?? [];
  }

  get committed(): boolean {
    if (!this.live) return false;
    return this.first ? this.outer.committed : this.forwarded;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.folder = new StreamFolder();
    this.held = [];
    this.mcpIndexes.clear();
    if (this.live && this.first && !this.outer.committed) this.outer.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    this.folder.push(part);
    switch (part.type) {
      case 'usage':
      case 'finish':
        return;
      case 'stream-start':
        if (this.first) this.forward(part);
        return;
      case 'tool-call-start':
        if (this.isMcpTool(part.name)) this.mcpIndexes.add(part.index);
        else this.forward(part);
        return;
      case 'tool-call-delta':
      case 'tool-call-end':
        if (!this.mcpIndexes.has(part.index)) this.forward(part);
        return;
      default:
        this.forward(part);
    }
  }

  waitForDrain(): Promise<void> | null {
    return this.outer.waitForDrain();
  }

  /** A whole answer: the turn's parts, once it succeeded. */
  flush(): void {
    for (const part of this.held) this.outer.part(part);
    this.held = [];
  }

  /** Parts of the loop's own (server tool calls, the final usage and finish), after the turn's. */
  emit(part: StreamPart): void {
    if (!this.live) {
      this.held.push(part);
      return;
    }
    this.flushPrelude();
    this.outer.part(part);
  }

  private forward(part: StreamPart): void {
    if (!this.live) {
      this.held.push(part);
      return;
    }
    this.flushPrelude();
    this.forwarded = true;
    this.outer.part(part);
  }

  private flushPrelude(): void {
    if (this.prelude.length === 0) return;
    const prelude = this.prelude;
    this.prelude = [];
    for (const p of prelude) this.outer.part(p);
  }
}
