import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliWithEnv } from '../support/run-cli.ts';
import { listening, REPO, serve, serveEnv, starterKey, stop, tempDir } from '../support/serve-process.ts';

// A newcomer's first start, read once: the banner names the dashboard and the command (as
// README types it: `npx switchyard`, no `switchyard` on PATH after `npm ci`) that makes the
// management key it signs in with; that command, run as printed, makes a key that signs in
// and shows the first request. The API key pasted into the sign-in says what to paste instead.

/** The words of a printed command line: leading NAME=value words as its environment. */
function parseCommand(line: string): { env: Record<string, string>; words: string[] } {
  const words = line.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const w = words.shift()!;
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1).replace(/^'(.*)'$/, '$1');
  }
  return { env, words };
}

async function signIn(origin: string, key: string): Promise<{ status: number; cookie: string | null; json: any }> {
  const res = await fetch(`${origin}/api/v1/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key }),
  });
  return { status: res.status, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null, json: await res.json() };
}

test('the first-start banner leads to a signed-in dashboard: its URL, and the management-key command as README runs it, which works as printed', async () => {
  const dataDir = join(tempDir('switchyard-newcomer'), 'data');
  // From the checkout's folder, as `npm start` runs it.
  const s = serve(serveEnv({ SWITCHYARD_DATA_DIR: dataDir }), ['--port', '0'], { cwd: REPO });
  try {
    const origin = await listening(s);
    const apiKey = await starterKey(s);
    await s.waitFor(/--admin\n/);
    const banner = s.stderr;

    assert.match(banner, new RegExp(`^dashboard: ${origin}/dashboard/$`, 'm'), 'the dashboard URL');
    assert.match(banner, /signs in with a management key, not with the API key/);
    for (const m of banner.matchAll(/^.*\bkeys create\b.*$/gm)) {
      assert.match(m[0], /^ {4}(\S+=\S+ )*npx switchyard keys create /, `every command as README runs it (npx switchyard): ${m[0]}`);
    }
    const line = /^ {4}(.*keys create --account (acct_[\w-]+) --name dashboard --management)$/m.exec(banner);
    assert.ok(line !== null, banner);
    const accountId = line[2]!;

    // Run exactly what was printed (npx switchyard is this checkout's launcher).
    const { env, words } = parseCommand(line[1]!);
    assert.deepEqual(words.slice(0, 2), ['npx', 'switchyard']);
    assert.equal(env.SWITCHYARD_DATA_DIR, dataDir, 'the command reaches the database the gateway serves');
    const made = runCliWithEnv(dataDir, { SWITCHYARD_CONFIG: '', ...env }, ...words.slice(2));
    assert.equal(made.code, 0, made.err);
    assert.equal(made.err, '');
    const managementKey = /^ {4}(sk-sy-v1-\S+)$/m.exec(made.out)?.[1];
    assert.ok(managementKey !== undefined, made.out);

    // The first request, then the dashboard signed in with the new key shows it.
    const chat = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'switchyard/sim-fast', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.equal(chat.status, 200);
    const { id } = (await chat.json()) as { id: string };
    const session = await signIn(origin, managementKey);
    assert.equal(session.status, 200, JSON.stringify(session.json));
    assert.equal(session.json.kind, 'management');
    assert.equal(session.json.account.id, accountId);
    // Its record is written just after the answer (settlement): read Activity until it is there.
    let shown = false;
    for (const until = Date.now() + 10_000; !shown && Date.now() < until;) {
      const activity = await fetch(`${origin}/api/v1/activity`, { headers: { cookie: session.cookie! } });
      assert.equal(activity.status, 200);
      shown = JSON.stringify(await activity.json()).includes(id);
    }
    assert.ok(shown, "the first request is in the dashboard's Activity");

    // The API key pasted into the sign-in: refused, with what to paste instead and how to make it.
    const wrong = await signIn(origin, apiKey);
    assert.equal(wrong.status, 403);
    assert.match(wrong.json.error.message, /API key/);
    assert.ok(
      wrong.json.error.message.includes(`npx switchyard keys create --account ${accountId} --name dashboard --management`),
      wrong.json.error.message,
    );
    assert.doesNotMatch(wrong.json.error.message, /SWITCHYARD_DATA_DIR|\//, "no path of the gateway's machine in an answer");
  } finally {
    await stop(s);
  }
});

test("README's first start says what the banner says: npx switchyard, the management key command, the dashboard URL", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  assert.ok(readme.includes('npx switchyard keys create --account <id> --name dashboard --management'), 'the management key command');
  assert.ok(readme.includes('http://127.0.0.1:8080/dashboard/'), 'the dashboard URL');
  assert.doesNotMatch(
    readme,
    /(^|[^\w/-])(?<!npx )switchyard (keys|accounts|credits|usage|generations|serve|init|config|reload|migrate)\b/m,
    'no bare `switchyard` command (not on PATH after npm ci)',
  );
});
