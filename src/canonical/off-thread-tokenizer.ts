import { Worker } from 'node:worker_threads';
import { countTokens, type EncodingName } from './bpe-tokenizers.ts';
import type { CountReply, CountRequest } from './tokenizer-thread.ts';

/**
 * Counts tokens on a worker thread (tokenizer-thread.ts), started on first use: the BPE
 * encodings load there (~190 ms and ~110 MB, once), so the request that first needs a
 * count waits for them but the event loop, and every other request, does not. The thread
 * keeps the process alive only while a count is in flight. Should the thread fail, counts
 * fall back to this thread (the same numbers, at the cost of the stall).
 */
export class OffThreadTokenizer {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { texts: string[]; encoding: EncodingName; resolve: (counts: number[]) => void }>();

  /** Each text's token count in `encoding`, in order. */
  count(texts: string[], encoding: EncodingName = 'o200k_base'): Promise<number[]> {
    if (texts.every((t) => t.length === 0)) return Promise.resolve(texts.map(() => 0));
    const worker = this.thread();
    if (worker === null) return Promise.resolve(countHere(texts, encoding));
    const id = this.nextId++;
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve) => {
      this.waiting.set(id, { texts, encoding, resolve });
      worker.postMessage({ id, encoding, texts } satisfies CountRequest);
    });
  }

  /** Ends the thread (tests, shutdown); a later count starts a new one. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private thread(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    const worker = new Worker(new URL('./tokenizer-thread.ts', import.meta.url));
    worker.unref();
    worker.on('message', (m: CountReply) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      w.resolve('counts' in m ? m.counts : countHere(w.texts, w.encoding));
    });
    worker.on('error', () => {
      this.failed = true;
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      // Whatever was asked of it is counted here instead.
      for (const w of this.waiting.values()) w.resolve(countHere(w.texts, w.encoding));
      this.waiting.clear();
    });
    this.worker = worker;
    return worker;
  }
}

function countHere(texts: string[], encoding: EncodingName): number[] {
  return texts.map((t) => countTokens(t, encoding));
}

/** The process's tokenizer thread. */
export const offThreadTokenizer = new OffThreadTokenizer();
