import type { Endpoint } from '../../catalog/types.ts';
import { truncateRaw, unusableAnswerError } from '../http/upstream-error.ts';
import type { SseEvent } from '../sse/parse-sse.ts';
import type { PartSink, StreamDecoder } from '../types.ts';
import { GeminiAnswerDecoder } from './gemini-answer-decoder.ts';

/**
 * `streamGenerateContent?alt=sse`: each `data:` line is a whole GenerateContentResponse
 * with the new parts. No terminator: the connection closing ends the answer, and the last
 * chunk's finish reason says whether it was whole.
 */
export class GeminiStreamDecoder implements StreamDecoder {
  private readonly answer: GeminiAnswerDecoder;
  private readonly endpoint: Endpoint;
  private readonly emit: PartSink;
  private failed = false;

  constructor(endpoint: Endpoint, emit: PartSink) {
    this.endpoint = endpoint;
    this.emit = emit;
    this.answer = new GeminiAnswerDecoder(endpoint, emit);
  }

  onEvent(event: SseEvent): void {
    if (this.failed || this.answer.failed) return;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch {
      this.failed = true;
      this.emit({
        type: 'error',
        error: unusableAnswerError(this.endpoint, 'upstream sent malformed JSON in the stream', truncateRaw(event.data)),
      });
      return;
    }
    this.answer.response(value);
  }

  end(): void {
    if (this.failed) return;
    this.answer.end(false);
  }
}
