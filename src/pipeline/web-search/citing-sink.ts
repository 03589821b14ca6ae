import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { PlannedAttempt } from '../../catalog/types.ts';
import type { ExecutionSink } from '../../routing/execute-attempts.ts';
import type { SearchResult } from './search-backend.ts';
import { urlCitations } from './url-citations.ts';

/**
 * Between the executor and the tracking sink of a request the gateway searched for: keeps
 * the answer's text and puts the sources on its finish — `annotations` located in the text,
 * `citations` as URLs — or, when the search was skipped, why. Every dialect reads them there,
 * streamed (the finish chunk) or not.
 */
export class CitingSink implements ExecutionSink {
  private readonly inner: ExecutionSink;
  private readonly results: readonly SearchResult[];
  private readonly cite: boolean;
  private readonly skipped: string | undefined;
  private text = '';

  constructor(inner: ExecutionSink, results: readonly SearchResult[], cite: boolean, skipped: string | undefined) {
    this.inner = inner;
    this.results = results;
    this.cite = cite && results.length > 0;
    this.skipped = skipped;
  }

  get committed(): boolean {
    return this.inner.committed;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.text = '';
    this.inner.beginAttempt(attempt);
  }

  part(part: StreamPart): void {
    if (part.type === 'text-delta') this.text += part.text;
    else if (part.type === 'finish') {
      const reason: FinishReason = { ...part.reason };
      if (this.cite) {
        reason.annotations = urlCitations(this.text, this.results);
        reason.citations = this.results.map((r) => r.url);
      }
      if (this.skipped !== undefined) reason.searchSkipped = this.skipped;
      this.inner.part({ type: 'finish', reason });
      return;
    }
    this.inner.part(part);
  }

  waitForDrain(): Promise<void> | null {
    return this.inner.waitForDrain();
  }
}
