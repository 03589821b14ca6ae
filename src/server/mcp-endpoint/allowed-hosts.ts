// `mcp.allowed_hosts`: the hosts accounts may add MCP servers on. An entry is a host name
// (`mcp.example.com`, matched exactly, case aside), a wildcard of its subdomains
// (`*.example.com`: `a.example.com`, `a.b.example.com`, not `example.com`), an IP address,
// or `*` (any host; the SSRF guard still refuses private addresses unless allowed).

/** True when `hostname` (a URL's, IPv6 in brackets or not) is one of `allowed`. */
export function hostAllowed(allowed: readonly string[], hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  for (const entry of allowed) {
    const e = entry.toLowerCase();
    if (e === '*' || e === host) return true;
    if (e.startsWith('*.') && host.endsWith(e.slice(1)) && host.length > e.length - 1) return true;
  }
  return false;
}
