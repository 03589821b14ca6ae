import { serveThread } from '../runtime/serve-thread.ts';
import { countTokens, type EncodingName } from './bpe-tokenizers.ts';

// The tokenizer thread (off-thread-tokenizer.ts): counts texts with one BPE encoding, so
// that loading the encodings (~190 ms of synchronous module evaluation, once) and counting
// long texts never stall the gateway's event loop. A count that throws is answered as a
// failure, and counted on the event loop instead.

export interface CountRequest {
  encoding: EncodingName;
  texts: string[];
}

export interface CountReply {
  counts: number[];
}

serveThread<CountRequest, CountReply>((m) => ({ counts: m.texts.map((t) => countTokens(t, m.encoding)) }));
