import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostAllowed } from './allowed-hosts.ts';

test('mcp.allowed_hosts: exact names (any case, a trailing dot), subdomain wildcards (not the apex, not a suffix), IPs, and *', () => {
  const allowed = ['mcp.example.com', '*.tools.example', '10.0.0.7', '::1'];
  assert.equal(hostAllowed(allowed, 'mcp.example.com'), true);
  assert.equal(hostAllowed(allowed, 'MCP.Example.com.'), true);
  assert.equal(hostAllowed(allowed, 'evil-mcp.example.com'), false);
  assert.equal(hostAllowed(allowed, 'a.tools.example'), true);
  assert.equal(hostAllowed(allowed, 'a.b.tools.example'), true);
  assert.equal(hostAllowed(allowed, 'tools.example'), false, 'the wildcard is for subdomains');
  assert.equal(hostAllowed(allowed, 'eviltools.example'), false);
  assert.equal(hostAllowed(allowed, '10.0.0.7'), true);
  assert.equal(hostAllowed(allowed, '[::1]'), true);
  assert.equal(hostAllowed([], 'mcp.example.com'), false, 'none allowed by default');
  assert.equal(hostAllowed(['*'], 'anything.example'), true);
});
