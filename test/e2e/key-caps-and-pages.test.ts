import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { allPages, call, createAdminKey } from '../support/admin-client.ts';
import { runCli } from '../support/run-cli.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';

// Keys per account are bounded (`accounts.max_keys`), through every door (key-management
// API, admin API, CLI), and every key list answers in pages.

describe('keys per account are capped; key lists are paged', () => {
  let gw: TestGateway;
  let admin: string;
  before(async () => {
    gw = await startTestGateway({ yaml: `${SIM_ONLY}accounts:\n  max_keys: 6\n` });
    admin = (await createAdminKey(gw)).key;
  });
  after(() => gw.close());

  /** A fresh account with a management key (1 of its 6). */
  const account = async (name: string): Promise<{ id: string; manager: string }> => {
    const a = await gw.services.accountService.createAccount({ name, creditsUsd: '1' });
    const { key } = await gw.services.accountService.createKey({ accountId: a.id, management: true });
    return { id: a.id, manager: key };
  };

  test('the key-management API, the admin API and the CLI refuse a key past the cap with 403 key_limit_reached; deleting one makes room', async () => {
    const a = await account('capped');
    const created: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: `k${i}` });
      assert.equal(r.status, 201);
      created.push(r.json.data.hash);
    }
    const viaAdmin = await call('POST', `${gw.origin}/api/v1/admin/accounts/${a.id}/keys`, admin, { name: 'fifth' });
    assert.equal(viaAdmin.status, 201, 'the sixth key of six');
    const refused = await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'one too many' });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error.code, 'key_limit_reached');
    assert.match(refused.json.error.message, /already holds 6 keys.*accounts\.max_keys/);
    const adminRefused = await call('POST', `${gw.origin}/api/v1/admin/accounts/${a.id}/keys`, admin, {
      name: 'one too many',
      kind: 'management',
    });
    assert.equal(adminRefused.status, 403);
    assert.equal(adminRefused.json.error.code, 'key_limit_reached');
    const cli = runCli(gw.dir, 'keys', 'create', '--account', a.id, '--name', 'one too many');
    assert.notEqual(cli.code, 0);
    assert.match(cli.err, /already holds 6 keys/);
    assert.equal(await gw.services.stores.accounts.countKeys(a.id), 6, 'nothing created past the cap');
    // Deleting one makes room for one.
    assert.equal((await call('DELETE', `${gw.origin}/api/v1/keys/${created[0]}`, a.manager)).status, 200);
    assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'again' })).status, 201);
    assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'again' })).status, 403);
  });

  test('concurrent creations cannot pass the cap together', async () => {
    const a = await account('raced');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: `r${i}` })),
    );
    assert.equal(answers.filter((r) => r.status === 201).length, 5);
    assert.equal(answers.filter((r) => r.status === 403).length, 7);
    assert.equal(await gw.services.stores.accounts.countKeys(a.id), 6);
  });

  test('a reload changes the cap for the next creation (accounts.max_keys is reloadable)', async () => {
    const a = await account('reloaded');
    for (let i = 0; i < 5; i++) assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: `r${i}` })).status, 201);
    assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'seventh' })).status, 403);
    const reload = (max: number): void => {
      const path = join(gw.dir, 'switchyard.yaml');
      writeFileSync(path, `${SIM_ONLY}accounts:\n  max_keys: ${max}\n`);
      const result = gw.services.inForce.reload(() => {
        const c = loadConfig({ path, env: { SWITCHYARD_DATA_DIR: gw.dir } });
        c.server = { ...c.server, host: '127.0.0.1', port: 0 };
        return c;
      });
      assert.equal(result.ok, true, JSON.stringify(result));
    };
    reload(7);
    try {
      assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'seventh' })).status, 201);
      assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: 'eighth' })).status, 403);
    } finally {
      reload(6);
    }
  });

  test("GET /keys pages by cursor (at most 100 a page), keeps OpenRouter's offset, and refuses bad paging", async () => {
    const a = await account('paged');
    for (let i = 0; i < 5; i++) assert.equal((await call('POST', `${gw.origin}/api/v1/keys`, a.manager, { name: `p${i}` })).status, 201);
    const all = await call('GET', `${gw.origin}/api/v1/keys`, a.manager);
    assert.deepEqual(
      all.json.data.map((k: { name: string }) => k.name),
      ['p0', 'p1', 'p2', 'p3', 'p4'],
      'API keys only, in creation order',
    );
    assert.equal(all.json.next_cursor, null);
    const paged = await allPages(`${gw.origin}/api/v1/keys?limit=2`, a.manager);
    assert.deepEqual(
      paged.map((k) => k.name),
      ['p0', 'p1', 'p2', 'p3', 'p4'],
    );
    const offset = await call('GET', `${gw.origin}/api/v1/keys?offset=3`, a.manager);
    assert.deepEqual(
      offset.json.data.map((k: { name: string }) => k.name),
      ['p3', 'p4'],
    );
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'offset=x', 'cursor=nope']) {
      const r = await call('GET', `${gw.origin}/api/v1/keys?${q}`, a.manager);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.error.code, 'invalid_parameter', q);
    }
  });

  test('GET /admin/keys pages by cursor (at most 200 a page), of one account or all', async () => {
    const a = await account('admin paged');
    for (let i = 0; i < 5; i++) await gw.services.accountService.createKey({ accountId: a.id, name: `q${i}` });
    const first = await call('GET', `${gw.origin}/api/v1/admin/keys?account=${a.id}&limit=4`, admin);
    assert.equal(first.status, 200);
    assert.equal(first.json.data.length, 4);
    assert.ok(first.json.next_cursor);
    const ofAccount = await allPages(`${gw.origin}/api/v1/admin/keys?account=${a.id}&limit=4`, admin);
    assert.equal(ofAccount.length, 6);
    assert.ok(ofAccount.every((k) => k.account_id === a.id));
    const everyKey = await allPages(`${gw.origin}/api/v1/admin/keys?limit=7`, admin);
    assert.equal(new Set(everyKey.map((k) => k.hash)).size, everyKey.length, 'no key twice across pages');
    assert.ok(everyKey.length >= 6 + 2);
    const unpaged = await call('GET', `${gw.origin}/api/v1/admin/keys`, admin);
    assert.ok(unpaged.json.data.length <= 50, 'a default page of 50');
    for (const q of ['limit=201', 'cursor=nope'])
      assert.equal((await call('GET', `${gw.origin}/api/v1/admin/keys?${q}`, admin)).status, 400, q);
  });
});
