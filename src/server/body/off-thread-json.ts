import { GatewayError } from '../../errors/gateway-error.ts';
import { checkJsonDepth } from '../../front/shared/check-json-depth.ts';
import { ThreadLost, WorkerClient } from '../../runtime/worker-client.ts';
import { checkJsonShape } from './json-values.ts';
import { parseJsonText } from './parse-json-text.ts';
import type { ParseReply, ParseRequest } from './json-parse-thread.ts';

/**
 * Parses JSON bodies on a worker thread (json-parse-thread.ts), started on first use: a
 * large body's parse (about 12 ms per MB of text, far more for bodies of many small values)
 * never stalls the event loop, and a body with more than MAX_JSON_VALUES values is refused
 * there before it is parsed. The thread keeps the process alive only while a parse is in
 * flight (runtime/worker-client.ts). Should it fail, bodies are parsed on this thread, with
 * the same bounds.
 */
export class OffThreadJson {
  private readonly thread = new WorkerClient<ParseRequest, ParseReply>(new URL('./json-parse-thread.ts', import.meta.url));
  private failed = false;

  parse(bytes: Uint8Array): Promise<unknown> {
    if (this.failed) return parseHere(bytes);
    // The body is the parser's alone: its memory moves to the thread when it owns it whole.
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer);
    const sent = owned ? bytes : new Uint8Array(bytes);
    return this.thread.call({ bytes: sent }, [sent.buffer as ArrayBuffer]).then(
      (m) => {
        if ('value' in m) return m.value;
        throw new GatewayError(m.error.code, m.error.message, m.error.param === undefined ? {} : { param: m.error.param });
      },
      (err: unknown) => {
        if (err instanceof ThreadLost && err.reason.startsWith('it failed')) this.failed = true;
        // A body whose parse was lost with the thread (its bytes moved there) is refused; a copied one is parsed here.
        if (!owned) return parseHere(bytes);
        throw new GatewayError('internal_error', 'The request body could not be parsed.');
      },
    );
  }

  close(): Promise<void> {
    return this.thread.close();
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
