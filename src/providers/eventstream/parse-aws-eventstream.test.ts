import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { SseEvent } from '../sse/parse-sse.ts';
import { SseEventTooLargeError } from '../sse/parse-sse.ts';
import { AwsEventStreamParser, EventStreamFrameError } from './parse-aws-eventstream.ts';

const codec = new EventStreamCodec(
  (b) => Buffer.from(b).toString('utf8'),
  (s) => Buffer.from(s, 'utf8'),
);

function frame(messageType: string, typeHeader: string, type: string, payload: string): Buffer {
  return Buffer.from(
    codec.encode({
      headers: { ':message-type': { type: 'string', value: messageType }, [typeHeader]: { type: 'string', value: type } },
      body: Buffer.from(payload, 'utf8'),
    }),
  );
}

function collect(): { events: SseEvent[]; parser: AwsEventStreamParser } {
  const events: SseEvent[] = [];
  return { events, parser: new AwsEventStreamParser((e) => events.push(e)) };
}

describe('AWS event-stream parser', () => {
  const a = frame('event', ':event-type', 'contentBlockDelta', '{"delta":{"text":"héllo"}}');
  const b = frame('exception', ':exception-type', 'throttlingException', '{"message":"slow down"}');

  it('reads frames split anywhere, one byte at a time, and several in one chunk', () => {
    const bytes = Buffer.concat([a, b]);
    const one = collect();
    for (let i = 0; i < bytes.length; i++) one.parser.push(bytes.subarray(i, i + 1));
    one.parser.end();
    const whole = collect();
    whole.parser.push(bytes);
    whole.parser.end();
    const expected = [
      { event: 'contentBlockDelta', data: '{"delta":{"text":"héllo"}}' },
      { event: 'exception:throttlingException', data: '{"message":"slow down"}' },
    ];
    assert.deepEqual(one.events, expected);
    assert.deepEqual(whole.events, expected);
  });

  it('refuses a frame whose checksum is wrong, and a stream cut inside a frame', () => {
    const bad = Buffer.from(a);
    bad.writeUInt8(bad.readUInt8(bad.length - 6) ^ 0xff, bad.length - 6); // a payload byte: the message CRC no longer matches
    assert.throws(() => collect().parser.push(bad), EventStreamFrameError);
    const cut = collect();
    cut.parser.push(a.subarray(0, a.length - 3));
    assert.throws(() => cut.parser.end(), EventStreamFrameError);
  });

  it('refuses a frame larger than its cap before reading it', () => {
    const events: SseEvent[] = [];
    const parser = new AwsEventStreamParser((e) => events.push(e), 64);
    assert.throws(() => parser.push(a), SseEventTooLargeError);
    assert.equal(events.length, 0);
  });
});
