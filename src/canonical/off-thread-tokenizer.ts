import { countTokens, type EncodingName } from './bpe-tokenizers.ts';
import type { CountReply, CountRequest } from './tokenizer-thread.ts';
import { ThreadLost, WorkerClient } from '../runtime/worker-client.ts';

/**
 * Counts tokens on a worker thread (tokenizer-thread.ts), started on first use: the BPE
 * encodings load there (~190 ms and ~110 MB, once), so the request that first needs a
 * count waits for them but the event loop, and every other request, does not. The thread
 * keeps the process alive only while a count is in flight (runtime/worker-client.ts).
 * Should the thread fail, counts fall back to this thread (the same numbers, at the cost of
 * the stall): a count lost with the thread, and every count after a thread that failed.
 */
export class OffThreadTokenizer {
  private readonly thread = new WorkerClient<CountRequest, CountReply>(new URL('./tokenizer-thread.ts', import.meta.url));
  private failed = false;

  /** Each text's token count in `encoding`, in order. */
  count(texts: string[], encoding: EncodingName = 'o200k_base'): Promise<number[]> {
    if (texts.every((t) => t.length === 0)) return Promise.resolve(texts.map(() => 0));
    if (this.failed) return Promise.resolve(countHere(texts, encoding));
    return this.thread.call({ encoding, texts }).then(
      (reply) => reply.counts,
      (err: unknown) => {
        if (err instanceof ThreadLost && err.reason.startsWith('it failed')) this.failed = true;
        return countHere(texts, encoding);
      },
    );
  }

  /** Ends the thread (tests, shutdown); a later count starts a new one. */
  close(): Promise<void> {
    return this.thread.close();
  }
}

function countHere(texts: string[], encoding: EncodingName): number[] {
  return texts.map((t) => countTokens(t, encoding));
}

/** The process's tokenizer thread. */
export const offThreadTokenizer = new OffThreadTokenizer();
