import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, fetch as fetchWith } from 'undici';
import { postJson, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { runCli, runCliJson } from '../support/run-cli.ts';

// The read commands over what requests did: `usage` (by day, model or key) and
// `generations list|show`, against records a running gateway wrote for real requests.

describe('usage and generations from the CLI', () => {
  let gw: TestGateway;
  let accountId: string;
  let keyA: { key: string; hash: string; label: string };
  let keyB: { key: string; hash: string; label: string };
  const ids: Record<string, string[]> = { fast: [], pro: [] };

  before(async () => {
    gw = await startTestGateway();
    accountId = runCliJson(gw.dir, 'accounts', 'create', '--name', 'Reader', '--credits', '5').id;
    keyA = runCliJson(gw.dir, 'keys', 'create', '--account', accountId, '--name', 'a');
    keyB = runCliJson(gw.dir, 'keys', 'create', '--account', accountId, '--name', 'b');
    const ask = async (key: string, model: string, bucket: string[]) => {
      const r = await postJson(
        `${gw.baseUrl}/chat/completions`,
        { model, max_tokens: 20, messages: [{ role: 'user', content: 'hello there' }] },
        { authorization: `Bearer ${key}` },
      );
      assert.equal(r.status, 200, r.text);
      bucket.push(r.headers.get('x-generation-id')!);
    };
    await ask(keyA.key, 'switchyard/sim-fast', ids.fast!);
    await ask(keyA.key, 'switchyard/sim-pro', ids.pro!);
    await ask(keyB.key, 'switchyard/sim-pro', ids.pro!);
    await gw.flush();
  });
  after(() => gw.close());

  function record(id: string): any {
    return runCliJson(gw.dir, 'generations', 'show', id);
  }

  test('usage by model, key and day adds up to the generation records', () => {
    const all = [...ids.fast!, ...ids.pro!].map(record);
    const cost = (rs: any[]) => rs.reduce((n, r) => n + BigInt(Math.round(Number(r.total_cost_usd) * 1e9)), 0n);
    const nanos = (usd: string) => BigInt(Math.round(Number(usd) * 1e9));

    const byModel = runCliJson(gw.dir, 'usage', '--account', accountId, '--by', 'model');
    assert.equal(byModel.by, 'model');
    const models = Object.fromEntries(byModel.rows.map((r: any) => [r.model, r]));
    assert.deepEqual(Object.keys(models).sort(), ['switchyard/sim-fast', 'switchyard/sim-pro']);
    assert.equal(models['switchyard/sim-pro'].requests, 2);
    assert.equal(models['switchyard/sim-fast'].requests, 1);
    assert.equal(nanos(models['switchyard/sim-pro'].cost), cost(all.filter((r) => r.model === 'switchyard/sim-pro')));
    assert.equal(
      models['switchyard/sim-pro'].prompt_tokens,
      all.filter((r) => r.model === 'switchyard/sim-pro').reduce((n, r) => n + r.tokens_prompt, 0),
    );
    assert.equal(nanos(byModel.total_cost), cost(all));
    assert.ok(nanos(byModel.total_cost) > 0n, 'sim-pro is priced');

    const byKey = runCliJson(gw.dir, 'usage', '--account', accountId, '--by', 'key');
    const keys = Object.fromEntries(byKey.rows.map((r: any) => [r.key, r]));
    assert.equal(keys[keyA.hash].requests, 2);
    assert.equal(keys[keyA.hash].label, keyA.label);
    assert.equal(keys[keyB.hash].requests, 1);

    const byDay = runCliJson(gw.dir, 'usage', '--account', accountId);
    assert.equal(byDay.by, 'day');
    assert.deepEqual(
      byDay.rows.map((r: any) => r.day),
      [all[0].created_at.slice(0, 10)],
    );
    assert.equal(byDay.rows[0].requests, 3);

    const future = runCliJson(gw.dir, 'usage', '--account', accountId, '--since', '2999-01-01');
    assert.deepEqual(future.rows, []);

    const table = runCli(gw.dir, 'usage', '--account', accountId, '--by', 'key');
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^KEY +REQUESTS +ERRORS +PROMPT TOKENS +COMPLETION TOKENS +COST\n/);
    assert.ok(table.out.includes(keyA.label), 'keys shown by label');
    assert.match(table.out, /total cost: \$/);
  });

  test('generations list filters by account, key, model, status, time and limit, newest first', () => {
    const listed = (...args: string[]) => runCliJson(gw.dir, 'generations', 'list', '--account', accountId, ...args).map((g: any) => g.id);
    const every = listed();
    assert.equal(every.length, 3);
    assert.deepEqual([...every].sort(), [...ids.fast!, ...ids.pro!].sort());
    assert.deepEqual(listed('--model', 'switchyard/sim-pro').sort(), [...ids.pro!].sort());
    assert.deepEqual(listed('--key', keyB.hash), [ids.pro![1]]);
    assert.deepEqual(listed('--key', keyB.label), [ids.pro![1]], 'a key by its label');
    assert.deepEqual(listed('--status', 'error'), []);
    assert.equal(listed('--status', 'success').length, 3);
    assert.deepEqual(listed('--since', '2999-01-01'), []);
    assert.deepEqual(listed('--until', '2000-01-01'), []);
    assert.deepEqual(listed('--limit', '1'), [every[0]]);
    const created = every.map((id: string) => record(id).created_at);
    assert.deepEqual(created, [...created].sort().reverse(), 'newest first');

    const r = runCli(gw.dir, 'generations', 'list', '--account', accountId);
    assert.match(r.out, /^ID +CREATED +ACCOUNT +MODEL +PROVIDER +STATUS +TOKENS IN +TOKENS OUT +COST +LATENCY\n/);
    const backwards = runCli(gw.dir, 'generations', 'list', '--since', '2026-02-01', '--until', '2026-01-01');
    assert.equal(backwards.code, 1);
    assert.match(backwards.err, /--since .* must be before --until/);
    const bad = runCli(gw.dir, 'generations', 'list', '--status', 'failed');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /Allowed choices are success, error/);
  });

  test('generations show prints every field of the record, the same the HTTP lookup gives', async () => {
    const id = ids.pro![0]!;
    const g = record(id);
    // One serializer (server/routes/generation-view.ts): the CLI's names are the API's.
    assert.deepEqual(Object.keys(g), [
      'id',
      'account_id',
      'key_hash',
      'model',
      'provider_name',
      'upstream_model',
      'upstream_id',
      'api_type',
      'created_at',
      'streamed',
      'cancelled',
      'cache_hit',
      'byok',
      'status',
      'error_code',
      'finish_reason',
      'native_finish_reason',
      'tokens_prompt',
      'tokens_completion',
      'native_tokens_cached',
      'native_tokens_cache_write',
      'native_tokens_reasoning',
      'total_cost',
      'total_cost_usd',
      'usage',
      'cost_breakdown',
      'latency',
      'generation_time',
      'time_to_first_token',
      'attempts',
      'http_referer',
      'app_title',
      'user',
      'parent_id',
      'tool_calls',
      'guardrails',
    ]);
    assert.equal(g.key_hash, keyA.hash);
    assert.equal(g.model, 'switchyard/sim-pro');
    // A fresh connection: the CLI runs (spawnSync) block this process's event loop, gateway
    // included, so a kept-alive connection's timers fire late and race the next request.
    const fresh = new Agent({ pipelining: 0 });
    const http = (await (
      await fetchWith(`${gw.origin}/api/v1/generation?id=${id}`, { headers: { authorization: `Bearer ${keyA.key}` }, dispatcher: fresh })
    ).json()) as { data: any };
    await fresh.close();
    assert.deepEqual(http.data, g, 'the HTTP lookup and the CLI give the same object');

    const human = runCli(gw.dir, 'generations', 'show', id);
    assert.equal(human.code, 0, human.err);
    for (const field of Object.keys(g)) assert.match(human.out, new RegExp(`^${field}: `, 'm'), field);
    const missing = runCli(gw.dir, 'generations', 'show', 'gen-nope');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no generation gen-nope/);
  });
});
