import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHookedUpstream, type HookedUpstream } from '../support/hooked-upstream.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 23 §7: a request reaches its upstream only once its credit hold's row is committed,
// so that a crash at any moment leaves a row for every request an upstream may bill (the
// restart records each as interrupted: billing-crash.test.ts). Before, hold rows went in
// the next group commit while the upstream call went out at once: under load a SIGKILL
// found requests at the upstream without a row. That is the strict promise,
// `timeouts.hold_journal_ms: 0`; the default in-flight journal is billing-hold-journal.test.ts.

const chat = { model: 'acme/mock-1', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] };

describe('the hold row before the upstream call', () => {
  let up: HookedUpstream;
  let gw: TestGateway;
  let auth: Record<string, string>;
  before(async () => {
    up = await startHookedUpstream();
    gw = await startTestGateway({
      yaml: emulatorConfig(up.baseUrl, 'timeouts: { hold_journal_ms: 0 }\n'),
      env: { LOCAL_KEY: 'k' },
      credits: '10',
    });
    auth = { authorization: `Bearer ${gw.key}` };
  });
  after(async () => {
    await gw.services.writer!.exec('PRAGMA query_only = OFF');
    await gw.close();
    await up.close();
  });

  test('when the upstream receives a request, its hold row is in the database', async () => {
    let rowsAtArrival = -1;
    up.onNextRequest = () => {
      rowsAtArrival = Number((gw.db.prepare('SELECT count(*) AS n FROM reservations').get() as { n: number }).n);
    };
    const res = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(res.status, 200, res.text);
    assert.equal(rowsAtArrival, 1, 'the hold row was committed before the call');
  });

  test('a request whose hold row cannot be written is refused with 503 and nothing is sent upstream', async () => {
    const callsBefore = up.calls;
    // The writer thread (hold rows, settlements) refuses every write from here.
    await gw.services.writer!.exec('PRAGMA query_only = ON');
    const refused = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, 'storage_unavailable');
    assert.equal(up.calls, callsBefore, 'no upstream call without a durable hold');
    // Writes again: the next request is served, and nothing is left held.
    await gw.services.writer!.exec('PRAGMA query_only = OFF');
    const served = await postJson(`${gw.baseUrl}/chat/completions`, chat, auth);
    assert.equal(served.status, 200, served.text);
    assert.equal(up.calls, callsBefore + 1);
    assert.equal(gw.services.reservations.outstanding, 0);
  });
});
