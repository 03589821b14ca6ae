import { parentPort } from 'node:worker_threads';
import { countTokens, type EncodingName } from './bpe-tokenizers.ts';

// The tokenizer thread (off-thread-tokenizer.ts): counts texts with one BPE encoding, so
// that loading the encodings (~190 ms of synchronous module evaluation, once) and counting
// long texts never stall the gateway's event loop.

export interface CountRequest {
  id: number;
  encoding: EncodingName;
  texts: string[];
}

export type CountReply = { id: number; counts: number[] } | { id: number; error: string };

const port = parentPort!;
port.on('message', (m: CountRequest) => {
  try {
    port.postMessage({ id: m.id, counts: m.texts.map((t) => countTokens(t, m.encoding)) } satisfies CountReply);
  } catch (err) {
    port.postMessage({ id: m.id, error: (err as Error)?.message ?? String(err) } satisfies CountReply);
  }
});
