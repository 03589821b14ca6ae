import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MASK, redactConfig, redactUrls } from './redact-config.ts';

test('a URL keeps its scheme, host, path and parameter names; its userinfo and secret parameters are masked', () => {
  assert.equal(
    redactUrls('postgres://app:s3cret@db.internal:5432/gw?sslmode=require&password=p2'),
    `postgres://${MASK}@db.internal:5432/gw?sslmode=require&password=${MASK}`,
  );
  assert.equal(redactUrls('redis://:only-a-password@cache:6379/0'), `redis://${MASK}@cache:6379/0`);
  assert.equal(redactUrls('https://token-as-user@git.example/x'), `https://${MASK}@git.example/x`);
  // A password holding unescaped '@', '/' or '#' is masked whole, not cut at its first one.
  assert.equal(redactUrls('postgres://u:p@s/s#w@db:5432/gw'), `postgres://${MASK}@db:5432/gw`);
  assert.equal(
    redactUrls('see https://a:b@h/ and host=db password=hunter22 user=x'),
    `see https://${MASK}@h/ and host=db password=${MASK} user=x`,
  );
  assert.equal(redactUrls('http://127.0.0.1:9/v1?api-version=2024-10-21'), 'http://127.0.0.1:9/v1?api-version=2024-10-21');
});

test('secret-named fields and header maps are masked whole at any depth; the rest is kept', () => {
  const out = redactConfig({
    apiKey: 'k',
    headers: { 'X-Any': 'v' },
    options: { client_secret: { nested: 'x' }, region: 'eu' },
    token: 7,
    credentialsFile: '/etc/sa.json',
    n: 3n,
    re: /a+/,
    list: ['https://u:p@h/'],
    missing: undefined,
  });
  assert.deepEqual(out, {
    apiKey: MASK,
    headers: { 'X-Any': MASK },
    options: { client_secret: { nested: MASK }, region: 'eu' },
    token: MASK,
    credentialsFile: '/etc/sa.json',
    n: '3',
    re: 'a+',
    list: [`https://${MASK}@h/`],
    missing: null,
  });
});

test("an MCP server's headers and the token of its URL are masked in the config as shown", () => {
  const out = redactConfig({
    mcpServers: [{ name: 'docs', url: 'https://mcp.example/mcp?token=t0k', headers: { Authorization: 'Bearer s3cret' }, tools: null }],
  });
  assert.deepEqual(out, {
    mcpServers: [{ name: 'docs', url: `https://mcp.example/mcp?token=${MASK}`, headers: { Authorization: MASK }, tools: null }],
  });
});
