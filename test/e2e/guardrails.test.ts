import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { call, createAdminKey } from '../support/admin-client.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';
import { emulatorConfig, postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// An account's guardrails (issue 24 §5, docs/governance.md#guardrails): every text the model
// will read is checked before any upstream call; `redact` rules replace a match with a typed
// placeholder (what the upstream receives shows it), `block` rules refuse the request 403
// naming the rule. Card numbers are checked with Luhn and IBANs with mod-97, so look-alikes pass.

const RULES = [
  { detector: 'email', action: 'redact' },
  { detector: 'phone', action: 'redact' },
  { detector: 'pattern', pattern: 'PRJ-[0-9]{4}', name: 'project', action: 'redact' },
  { detector: 'payment_card', action: 'block' },
  { detector: 'iban', action: 'block' },
  { detector: 'credentials', action: 'block' },
];

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe('guardrails of an account', () => {
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let admin: string;
  const chat = (content: string, system?: string) =>
    postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [...(system === undefined ? [] : [{ role: 'system', content: system }]), { role: 'user', content }],
      },
      { authorization: `Bearer ${gw.key}` },
    );
  const lastUpstreamText = (): string => JSON.stringify(emu.requests.at(-1)!.body.messages);

  before(async () => {
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: emulatorConfig(emu.baseUrl), env: { LOCAL_KEY: 'upstream-key' } });
    admin = (await createAdminKey(gw)).key;
    const set = await call('PATCH', `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`, admin, { guardrails: RULES });
    assert.equal(set.status, 200, JSON.stringify(set.json));
    assert.deepEqual(set.json.data.guardrails, RULES);
  });
  after(async () => {
    await gw.close();
    await emu.close();
  });

  test('redact rules: the upstream reads typed placeholders, never the matches', async () => {
    const res = await chat('Mail jane.doe@example.com or call +44 20 7946 0958 about PRJ-1234.', 'Escalate to ops@example.org');
    assert.equal(res.status, 200, res.text);
    const sent = lastUpstreamText();
    assert.match(sent, /Mail \[EMAIL\] or call \[PHONE\] about \[PROJECT\]\./);
    assert.match(sent, /Escalate to \[EMAIL\]/);
    for (const secret of ['jane.doe@example.com', '7946', 'PRJ-1234', 'ops@example.org'])
      assert.equal(sent.includes(secret), false, secret);
  });

  test('the generation record lists the rules that fired (name, detector, action), never what they matched', async () => {
    const res = await chat('Mail jane.doe@example.com about PRJ-1234.');
    assert.equal(res.status, 200, res.text);
    const id = res.headers.get('x-generation-id');
    assert.ok(id !== null);
    const fired = [
      { name: 'email', detector: 'email', action: 'redact' },
      { name: 'project', detector: 'pattern', action: 'redact' },
    ];
    // The account's own key (GET /generation), the operator (GET /admin/generations/{id}), the CLI: one serializer.
    const own = await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
    const ownRecord = (await own.json()) as { data: { guardrails: unknown[] } };
    assert.deepEqual(ownRecord.data.guardrails, fired);
    const operator = await call('GET', `${gw.origin}/api/v1/admin/generations/${id}`, admin);
    assert.equal(operator.status, 200, JSON.stringify(operator.json));
    assert.deepEqual(operator.json.data.guardrails, fired);
    const shown = runCliJson(gw.dir, 'generations', 'show', id, '--json');
    assert.deepEqual(shown.guardrails, fired);
    for (const secret of ['jane.doe', 'PRJ-1234'])
      assert.equal(JSON.stringify([ownRecord, operator.json, shown]).includes(secret), false, secret);
    // A request no rule fired on: an empty list.
    const plain = await chat('nothing to hide here');
    const plainRecord = await call('GET', `${gw.origin}/api/v1/admin/generations/${plain.headers.get('x-generation-id')}`, admin);
    assert.deepEqual(plainRecord.json.data.guardrails, []);
  });

  test('block rules: 403 content_filter_error naming the rule, in each dialect; look-alikes that fail the checksum pass', async () => {
    const before = emu.requests.length;
    const card = await chat('my card is 4111 1111 1111 1111, exp 12/29');
    assert.equal(card.status, 403);
    assert.equal(card.json.error.type, 'content_filter_error');
    assert.deepEqual(card.json.error.metadata.reasons, ['payment_card']);
    assert.equal(card.text.includes('4111'), false, 'the refusal never repeats the text');
    const iban = await chat('pay to GB82 WEST 1234 5698 7654 32 today');
    assert.deepEqual(iban.json.error.metadata.reasons, ['iban']);
    const creds = await chat(`token ${JWT} and sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345`);
    assert.deepEqual(creds.json.error.metadata.reasons, ['credentials']);
    const pem = await chat('-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----');
    assert.deepEqual(pem.json.error.metadata.reasons, ['credentials']);
    const messages = await postJson(
      `${gw.baseUrl}/messages`,
      { model: 'acme/mock-1', max_tokens: 5, messages: [{ role: 'user', content: 'card 5555 5555 5555 4444' }] },
      { 'x-api-key': gw.key },
    );
    assert.equal(messages.status, 403);
    assert.equal(messages.json.error.type, 'content_filter_error');
    assert.equal(emu.requests.length, before, 'nothing blocked went upstream');

    // Luhn and mod-97 refute these: not cards, not IBANs.
    assert.equal((await chat('order 4111 1111 1111 1112 shipped')).status, 200);
    assert.equal((await chat('ref GB82 WEST 1234 5698 7654 33')).status, 200);
  });

  test('a redact rule matching text the gateway cannot rewrite (a tool definition) blocks', async () => {
    const res = await postJson(
      `${gw.baseUrl}/chat/completions`,
      {
        model: 'acme/mock-1',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [
          {
            type: 'function',
            function: { name: 'notify', description: 'Writes to boss@example.com', parameters: { type: 'object', properties: {} } },
          },
        ],
      },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.json.error.metadata.reasons, ['email']);
  });

  test('counted in the metrics by detector and action', async () => {
    const text = await (await fetch(`${gw.origin}/metrics`)).text();
    assert.match(text, /switchyard_guardrail_hits_total\{detector="email",action="redact"\} [1-9]/);
    assert.match(text, /switchyard_guardrail_hits_total\{detector="payment_card",action="block"\} [1-9]/);
    assert.match(text, /switchyard_guardrail_hits_total\{detector="pattern",action="redact"\} [1-9]/);
  });

  test('the rules are validated, audited, and cleared with null', async () => {
    const url = `${gw.origin}/api/v1/admin/accounts/${gw.accountId}`;
    const bad: Array<[unknown, RegExp]> = [
      [[{ detector: 'ssn', action: 'block' }], /detector/],
      [[{ detector: 'email', action: 'mask' }], /action/],
      [[{ detector: 'pattern', pattern: '(a)\\1', name: 'x', action: 'block' }], /guardrails\[0\]\.pattern/],
      [[{ detector: 'pattern', pattern: 'abc', action: 'block' }], /name/],
      [
        [
          { detector: 'email', action: 'block' },
          { detector: 'email', action: 'redact' },
        ],
        /name/,
      ],
      [[{ detector: 'email', action: 'block', extra: 1 }], /extra/],
    ];
    for (const [guardrails, field] of bad) {
      const res = await call('PATCH', url, admin, { guardrails });
      assert.equal(res.status, 400, JSON.stringify(guardrails));
      assert.match(JSON.stringify(res.json.error), field, JSON.stringify(guardrails));
    }
    const audit = await call('GET', `${gw.origin}/api/v1/admin/audit?target=${gw.accountId}&action=account.update`, admin);
    assert.deepEqual(audit.json.data[0].details.guardrails, RULES);
    const cleared = await call('PATCH', url, admin, { guardrails: null });
    assert.equal(cleared.json.data.guardrails, null);
    assert.equal((await chat('my card is 4111 1111 1111 1111')).status, 200);
  });

  test('the CLI sets and clears them, checked as the admin API checks them', async () => {
    const set = runCliJson(
      gw.dir,
      'accounts',
      'update',
      '--account',
      gw.accountId,
      '--guardrails',
      JSON.stringify([{ detector: 'payment_card', action: 'block' }]),
    );
    assert.deepEqual(set.guardrails, [{ detector: 'payment_card', action: 'block' }]);
    await gw.seeCliChanges();
    assert.equal((await chat('my card is 4111 1111 1111 1111')).status, 403);
    const refused = runCli(
      gw.dir,
      'accounts',
      'update',
      '--account',
      gw.accountId,
      '--guardrails',
      JSON.stringify([{ detector: 'pattern', pattern: '(a)\\1', name: 'x', action: 'block' }]),
    );
    assert.equal(refused.code, 1);
    assert.match(refused.err, /guardrails\[0\]\.pattern/);
    const cleared = runCliJson(gw.dir, 'accounts', 'update', '--account', gw.accountId, '--guardrails', 'none');
    assert.equal(cleared.guardrails, null);
  });
});
