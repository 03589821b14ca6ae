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
 * What is left of a request's budget for its PDFs together (`pdf.max_chars` and
 * `pdf.timeout_ms` bound all of a request's PDFs; size and pages bound each one).
 */
export interface PdfBudget {
  chars: number;
  /** Epoch ms. */
  deadline: number;
}

/** A whole budget, for a request whose first PDF is about to be read. */
export function fullBudget(bounds: PdfConfig, now = Date.now()): PdfBudget {
  return { chars: bounds.maxChars, deadline: now + bounds.timeoutMs };
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

  /**
   * The PDF's text, within `bounds` and what is left of the request's `budget` (whose
   * characters it takes). `bytes` are copied to the thread (kept here: a PDF lost with a
   * thread another PDF ended is read once more).
   */
  async extract(bytes: Uint8Array, bounds: PdfConfig, name: string, budget: PdfBudget = fullBudget(bounds)): Promise<PdfText> {
    const request: PdfTextRequest = { bytes, maxPages: bounds.maxPages, maxChars: budget.chars };
    let reply: PdfTextReply;
    try {
      reply = await this.readOnce(request, budget, bounds);
    } catch (err) {
      if (!(err instanceof ThreadLost)) throw refusal(err, name, bounds);
      // Ended with the thread while another PDF was read: once more, on a fresh thread.
      try {
        reply = await this.readOnce(request, budget, bounds);
      } catch (again) {
        throw refusal(again, name, bounds);
      }
    }
    if (reply.ok) {
      budget.chars -= reply.text.length;
      return { pages: reply.pages, text: reply.text };
    }
    if (reply.reason === 'chars') {
      throw new GatewayError(
        'file_too_large',
        `The PDF ${name} cannot be read as text: the text of the request's PDFs is longer than the ${bounds.maxChars} characters the gateway extracts.`,
      );
    }
    const code = reply.reason === 'pages' ? 'file_too_large' : 'unreadable_file';
    throw new GatewayError(code, `The PDF ${name} cannot be read as text: ${reply.detail}.`);
  }

  close(): Promise<void> {
    return this.thread.close();
  }

  private readOnce(request: PdfTextRequest, budget: PdfBudget, bounds: PdfConfig): Promise<PdfTextReply> {
    const left = budget.deadline - Date.now();
    if (left <= 0) return Promise.reject(new ThreadTimeout(bounds.timeoutMs));
    return this.thread.call(request, [], left).catch((err: unknown) => {
      throw err instanceof ThreadTimeout ? new ThreadTimeout(bounds.timeoutMs) : err;
    });
  }
}

function refusal(err: unknown, name: string, bounds: PdfConfig): GatewayError {
  if (err instanceof ThreadTimeout) {
    return new GatewayError(
      'file_too_large',
      `The PDF ${name} cannot be read as text: reading the request's PDFs took longer than the ${bounds.timeoutMs} ms the gateway allows.`,
    );
  }
  if (err instanceof ThreadLost && err.reason === OUT_OF_MEMORY) {
    return new GatewayError(
      'file_too_large',
      `The PDF ${name} cannot be read as text: reading it took more memory than the gateway allows.`,
    );
  }
  return new GatewayError('unreadable_file', `The PDF ${name} cannot be read as text: the reader failed on it.`);
}

/** The process's PDF text thread. */
export const pdfTextExtractor = new PdfTextExtractor();
