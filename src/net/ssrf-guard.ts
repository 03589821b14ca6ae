import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where the gateway may not connect on a client's or an account's behalf unless the operator
// allows it (`webhooks.allow_private_addresses` for webhooks, `mcp.allow_private_addresses`
// for MCP servers): loopback, private, link-local, shared, multicast and
// reserved ranges, in IPv4 and IPv6 (an IPv4-mapped IPv6 address as its IPv4 one). The check
// runs at registration and again at each connection (the socket's DNS lookup), on every
// address the host resolves to, so a DNS answer that changes after registration cannot slip past.

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** True for an address the gateway may not reach without `allow_private_addresses`. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return isPrivateAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return true; // not an address: refuse rather than guess
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The first private address `url`'s host is or resolves to, or null (a host that does not resolve throws). */
export async function privateAddressOf(url: URL): Promise<string | null> {
  const host = bareHost(url);
  const addresses = isIP(host) !== 0 ? [host] : (await dnsLookupAsync(host, { all: true, verbatim: true })).map((a) => a.address);
  return addresses.find(isPrivateAddress) ?? null;
}

export class PrivateAddressError extends Error {
  constructor(host: string, address: string, setting = 'webhooks.allow_private_addresses') {
    super(`${host} resolves to ${address}, a private or loopback address (${setting} is off)`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export type GuardedLookup = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => void;

/** A socket `lookup` that refuses a host with any private address among its answers; the error names `setting`. */
export function privateAddressLookup(setting: string): GuardedLookup {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err !== null) return callback(err, []);
      const bad = addresses.find((a) => isPrivateAddress(a.address));
      if (bad !== undefined)
        return callback(Object.assign(new PrivateAddressError(hostname, bad.address, setting), { code: 'EPRIVATEADDRESS' }), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Webhooks' lookup (`webhooks.allow_private_addresses`). */
export const guardedLookup: GuardedLookup = privateAddressLookup('webhooks.allow_private_addresses');
