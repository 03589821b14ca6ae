import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../errors/gateway-error.ts';
import { SecretScrubber } from './scrub-secrets.ts';

describe('SecretScrubber', () => {
  const s = new SecretScrubber(['configured-key-0001', 'short']);

  it('redacts configured secrets wherever they appear, but not ones too short to be told from words', () => {
    assert.equal(s.text('key configured-key-0001 was wrong; short answer'), 'key [REDACTED] was wrong; short answer');
  });

  it('redacts credential shapes: header echoes, Bearer tokens, vendor keys, query keys', () => {
    const cases: Array<[string, string]> = [
      ['{"authorization":"Bearer abc.def","host":"h"}', '{"authorization":"[REDACTED]","host":"h"}'],
      ['x-api-key: abc123, next', 'x-api-key: [REDACTED], next'],
      ['x-goog-api-key=zzz9', 'x-goog-api-key=[REDACTED]'],
      ['got Bearer tok_123-abc', 'got Bearer [REDACTED]'],
      ['key sk-proj-abcdefghijklmnop1234', 'key [REDACTED]'],
      ['key sk-ant-api03-abcdefghijklmnop', 'key [REDACTED]'],
      ['AIzaSyA1234567890abcdefghijklmnopqrstu!', '[REDACTED]!'],
      ['id AKIAABCDEFGHIJKLMNOP.', 'id [REDACTED].'],
      ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED]'],
      ['https://h/v1beta/models/x?key=abc123&alt=sse', 'https://h/v1beta/models/x?key=[REDACTED]&alt=sse'],
    ];
    for (const [input, expected] of cases) assert.equal(s.text(input), expected, input);
  });

  it('walks values: strings scrubbed, credential-named fields replaced whole', () => {
    assert.deepEqual(
      s.value({
        error: { message: 'configured-key-0001', n: 3, headers: { Authorization: 'Basic x', 'content-type': 'a/b' }, list: ['Bearer q'] },
      }),
      {
        error: {
          message: '[REDACTED]',
          n: 3,
          headers: { Authorization: '[REDACTED]', 'content-type': 'a/b' },
          list: ['Bearer [REDACTED]'],
        },
      },
    );
  });

  it('scrubs an error and keeps everything else of it', () => {
    const err = new GatewayError('provider_error', 'up said configured-key-0001', {
      metadata: { raw: 'x-api-key: configured-key-0001' },
      headers: { 'retry-after': '3' },
      retryable: false,
    });
    const out = s.error(err);
    assert.equal(out.message, 'up said [REDACTED]');
    assert.deepEqual(out.metadata, { raw: 'x-api-key: [REDACTED]' });
    assert.deepEqual(out.headers, { 'retry-after': '3' });
    assert.equal(out.retryable, false);
    assert.equal(out.status, 502);
  });

  it('answers a text it scrubbed before as a new pass would: short ones from its memo, past its bound too', () => {
    const fresh = new SecretScrubber(['configured-key-0001']);
    const texts = ['model acme/mock-1', 'app configured-key-0001', 'Bearer abc.def', `${'x'.repeat(300)} configured-key-0001`];
    // Twice over, and again once the memo has been filled and cleared (256 entries).
    for (let round = 0; round < 3; round++) {
      for (const t of texts) assert.equal(fresh.text(t), new SecretScrubber(['configured-key-0001']).text(t), t.slice(0, 40));
      if (round === 1) for (let i = 0; i < 300; i++) fresh.text(`title ${i}`);
    }
    assert.equal(fresh.text('app configured-key-0001'), 'app [REDACTED]');
  });
});
