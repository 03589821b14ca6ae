import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDF_DEFAULTS, type PdfConfig } from '../../src/config/parse-pdf.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { fullBudget, PdfTextExtractor } from '../../src/pipeline/file-parser/pdf-text-extractor.ts';
import { makePdf } from '../support/make-pdf.ts';

// The PDF text extractor on its worker thread, with real PDFs written by the test
// (test/support/make-pdf.ts): text page by page, and each refusal with its code.

const bounds = (over: Partial<PdfConfig> = {}): PdfConfig => ({ ...PDF_DEFAULTS, ...over });

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GatewayError, String(err));
    return err;
  }
  assert.fail('expected a refusal');
}

describe('PDF text extraction', () => {
  const extractor = new PdfTextExtractor();
  after(() => extractor.close());

  test('reads the text of every page, in order, lines kept', async () => {
    const pdf = makePdf({ pages: ['Quarterly report\nRevenue grew (a lot)', 'Page two says goodbye'] });
    const out = await extractor.extract(pdf, bounds(), '"q.pdf"');
    assert.equal(out.pages, 2);
    assert.equal(out.text, 'Quarterly report\nRevenue grew (a lot)\n\nPage two says goodbye');
  });

  test('a malformed PDF is a 400 unreadable_file naming the file', async () => {
    const err = await refusal(extractor.extract(new TextEncoder().encode('%PDF-1.4\nnot a pdf at all'), bounds(), '"broken.pdf"'));
    assert.equal(err.code, 'unreadable_file');
    assert.equal(err.status, 400);
    assert.match(err.message, /"broken\.pdf".*not a valid PDF/);
  });

  test('an encrypted PDF is a 400 unreadable_file saying so', async () => {
    const err = await refusal(extractor.extract(makePdf({ pages: ['secret'], encrypted: true }), bounds(), '"locked.pdf"'));
    assert.equal(err.code, 'unreadable_file');
    assert.match(err.message, /encrypted/);
  });

  test('a PDF with more pages than the bound is a 413 file_too_large', async () => {
    const pdf = makePdf({ pages: Array.from({ length: 501 }, (_, i) => `page ${i + 1}`) });
    const err = await refusal(extractor.extract(pdf, bounds(), '"long.pdf"'));
    assert.equal(err.code, 'file_too_large');
    assert.equal(err.status, 413);
    assert.match(err.message, /501 pages, more than the 500/);
    // The same file within a larger bound is read whole.
    // (A minute to read them: a loaded machine can take longer than the default 10 s.)
    const out = await extractor.extract(pdf, bounds({ maxPages: 501, timeoutMs: 60_000 }), '"long.pdf"');
    assert.equal(out.pages, 501);
    assert.match(out.text, /^page 1\n\npage 2\n\n.*page 501$/s);
  });

  test('text longer than the character bound is a 413 file_too_large', async () => {
    const err = await refusal(
      extractor.extract(makePdf({ pages: [Array(4).fill('x'.repeat(50)).join('\n')] }), bounds({ maxChars: 100 }), '"wordy.pdf"'),
    );
    assert.equal(err.code, 'file_too_large');
    assert.match(err.message, /100 characters/);
  });

  test("the character and time bounds are for all of a request's PDFs together", async () => {
    const b = bounds({ maxChars: 150 });
    const budget = fullBudget(b);
    const eighty = makePdf({ pages: [Array(2).fill('y'.repeat(40)).join('\n')] });
    assert.equal((await extractor.extract(eighty, b, '"one.pdf"', budget)).text.length, 81);
    assert.equal(budget.chars, 150 - 81);
    const err = await refusal(extractor.extract(eighty, b, '"two.pdf"', budget));
    assert.equal(err.code, 'file_too_large');
    assert.match(err.message, /"two\.pdf".*the request's PDFs is longer than the 150 characters/);
    // A budget whose time is spent refuses the next PDF without reading it.
    const spent = await refusal(extractor.extract(eighty, b, '"late.pdf"', { chars: 1000, deadline: Date.now() - 1 }));
    assert.equal(spent.code, 'file_too_large');
    assert.match(spent.message, /longer than the 10000 ms/);
  });

  test('a PDF that takes longer than the time bound is a 413; the thread is ended, and the next PDF gets a fresh one', async () => {
    // One page whose deflated content stream shows 300,000 lines: far more than 150 ms of reading.
    const slow = makePdf({ pages: ['slow slow slow'], repeat: 300_000 });
    const started = extractor.thread.started;
    const err = await refusal(extractor.extract(slow, bounds({ timeoutMs: 150, maxChars: 100_000_000 }), '"slow.pdf"'));
    assert.equal(err.code, 'file_too_large');
    assert.match(err.message, /longer than the 150 ms/);
    const out = await extractor.extract(makePdf({ pages: ['after the timeout'] }), bounds(), '"next.pdf"');
    assert.equal(out.text, 'after the timeout');
    assert.equal(extractor.thread.started, started + 1, 'one fresh thread');
  });

  test('a decompression bomb is a 413 once the thread passes its memory bound, and the gateway goes on', async () => {
    // 160 MB of blanks deflate to ~160 KB; this extractor's thread may hold 64 MB.
    const small = new PdfTextExtractor(64);
    try {
      const err = await refusal(
        small.extract(makePdf({ pages: ['boom'], bomb: 160 * 1024 * 1024 }), bounds({ timeoutMs: 60_000 }), '"bomb.pdf"'),
      );
      assert.equal(err.code, 'file_too_large');
      assert.match(err.message, /more memory than the gateway allows/);
      assert.equal((await small.extract(makePdf({ pages: ['calm again'] }), bounds(), '"ok.pdf"')).text, 'calm again');
    } finally {
      await small.close();
    }
  });

  test("a PDF in flight when another one's timeout ends the thread is read once more and answered", async () => {
    const slow = makePdf({ pages: ['slow slow slow'], repeat: 300_000 });
    const [timedOut, read] = await Promise.allSettled([
      extractor.extract(slow, bounds({ timeoutMs: 150, maxChars: 100_000_000 }), '"slow.pdf"'),
      extractor.extract(makePdf({ pages: ['innocent bystander'] }), bounds(), '"ok.pdf"'),
    ]);
    assert.equal(timedOut.status, 'rejected');
    assert.equal((timedOut.reason as GatewayError).code, 'file_too_large');
    assert.equal(read.status, 'fulfilled');
    assert.equal((read as PromiseFulfilledResult<{ text: string }>).value.text, 'innocent bystander');
  });
});
