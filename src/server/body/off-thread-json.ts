import { Worker } from 'node:worker_threads';
import { GatewayError } from '../../errors/gateway-error.ts';
import { checkJsonDepth } from '../../front/shared/check-json-depth.ts';
import { checkJsonShape } from './json-values.ts';
import { parseJsonText } from './parse-json-text.ts';
import type { ParseReply, ParseRequest } from './json-parse-thread.ts';

/**
 * Parses JSON bodies on a worker thread (json-parse-thread.ts), started on first use: a
 * large body's parse (about 12 ms per MB of text, far more for bodies of many small values)
 * never stalls the event loop, and a body with more than MAX_JSON_VALUES values is refused
 * there before it is parsed. The thread keeps the process alive only while a parse is in
 * flight. Should it fail, bodies are parsed on this thread, with the same bounds.
 */
export class OffThreadJson {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { bytes: Uint8Array; resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  parse(bytes: Uint8Array): Promise<unknown> {
    const worker = this.thread();
    if (worker === null) return parseHere(bytes);
    const id = this.nextId++;
    if (this.waiting.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { bytes, resolve, reject });
      // The body is the parser's alone: its memory moves to the thread when it owns it whole.
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer);
      const sent = owned ? bytes : new Uint8Array(bytes);
      worker.postMessage({ id, bytes: sent } satisfies ParseRequest, [sent.buffer as ArrayBuffer]);
      if (owned) this.waiting.get(id)!.bytes = new Uint8Array(0);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private thread(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    const worker = new Worker(new URL('./json-parse-thread.ts', import.meta.url));
    worker.unref();
    worker.on('message', (m: ParseReply) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      if ('value' in m) w.resolve(m.value);
      else w.reject(new GatewayError(m.error.code, m.error.message, m.error.param === undefined ? {} : { param: m.error.param }));
    });
    worker.on('error', () => {
      this.failed = true;
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      // A body whose parse was lost with the thread (its bytes moved there) is refused; a copied one is parsed here.
      for (const w of this.waiting.values()) {
        if (w.bytes.byteLength > 0) parseHere(w.bytes).then(w.resolve, w.reject);
        else w.reject(new GatewayError('internal_error', 'The request body could not be parsed.'));
      }
      this.waiting.clear();
    });
    this.worker = worker;
    return worker;
  }
}

async function parseHere(bytes: Uint8Array): Promise<unknown> {
  checkJsonShape(bytes);
  const value = parseJsonText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  checkJsonDepth(value);
  return value;
}

/** The process's JSON body thread. */
export const offThreadJson = new OffThreadJson();
