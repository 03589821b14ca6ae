import type { PdfConfig } from '../../config/parse-pdf.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import { OUT_OF_MEMORY, ThreadLost, ThreadTimeout, WorkerClient } from '../../runtime/worker-client.ts';
import type { PdfTextReply, PdfTextRequest } from './pdf-text-thread.ts';

/**
 * The extraction thread's memory, its heap and its ArrayBuffers (pdf.js inflates streams
 * into those): a PDF that needs more (a decompression bomb) ends the thread, and is refused.
 */
const THREAD_HEAP_MB = 512;
const THREAD_MEMORY_MB = 1024;

export interface PdfText {
  pages: number;
  text: string;
}

/**
 * Extracts a PDF's text on a worker thread (pdf-text-thread.ts), started on first use, so
 * that reading a PDF (a parser facing hostile input) never stalls the event loop, and a PDF
 * that takes too long or too much memory ends the thread, not the gateway: the next PDF
 * gets a fresh one. Refusals are GatewayErrors naming the file: 400 `unreadable_file`
 * (malformed, encrypted), 413 `file_too_large` (a bound of `pdf:`).
 */
export class PdfTextExtractor {
  readonly thread: WorkerClient<PdfTextRequest, PdfTextReply>;

  /** `maxMemoryMb`: the thread's memory bound (tests lower it). */
  constructor(maxMemoryMb = THREAD_MEMORY_MB) {
    this.thread = new WorkerClient(new URL('./pdf-text-thread.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
      maxMemoryMb,
    });
  }

  /** `bytes` are copied to the thread (kept here: a PDF lost with a thread another PDF ended is read once more). */
  async extract(bytes: Uint8Array, bounds: PdfConfig, name: string): Promise<PdfText> {
    const request: PdfTextRequest = { bytes, maxPages: bounds.maxPages, maxChars: bounds.maxChars };
    let reply: PdfTextReply;
    try {
      reply = await this.readOnce(request, bounds.timeoutMs);
    } catch (err) {
      if (!(err instanceof ThreadLost)) throw refusal(err, name);
      // Ended with the thread while another PDF was read: once more, on a fresh thread.
      try {
        reply = await this.readOnce(request, bounds.timeoutMs);
      } catch (again) {
        throw refusal(again, name);
      }
    }
    if (reply.ok) return { pages: reply.pages, text: reply.text };
    const code = reply.reason === 'pages' || reply.reason === 'chars' ? 'file_too_large' : 'unreadable_file';
    throw new GatewayError(code, `The PDF ${name} cannot be read as text: ${reply.detail}.`);
  }

  close(): Promise<void> {
    return this.thread.close();
  }

  private readOnce(request: PdfTextRequest, timeoutMs: number): Promise<PdfTextReply> {
    return this.thread.call(request, [], timeoutMs);
  }
}

function refusal(err: unknown, name: string): GatewayError {
  if (err instanceof ThreadTimeout) {
    return new GatewayError('file_too_large', `The PDF ${name} cannot be read as text: reading it took longer than the ${err.timeoutMs} ms the gateway allows.`);
  }
  if (err instanceof ThreadLost && err.reason === OUT_OF_MEMORY) {
    return new GatewayError('file_too_large', `The PDF ${name} cannot be read as text: reading it took more memory than the gateway allows.`);
  }
  return new GatewayError('unreadable_file', `The PDF ${name} cannot be read as text: the reader failed on it.`);
}

/** The process's PDF text thread. */
export const pdfTextExtractor = new PdfTextExtractor();
