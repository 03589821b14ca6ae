import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on loopback for tests (the gateway must allow it:
// webhooks.allow_private_addresses: true), and docs/webhooks.md's signature check.

/** docs/webhooks.md's verification snippet, as a receiver would paste it. */
export function verifySignature(secret: string, header: string, rawBody: string, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

export interface WebhookReceiver {
  url: string;
  got: Received[];
  /** Resolves once n requests have arrived. */
  until(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A receiver answering the n-th delivery (from 1) with `status(n)`. */
export async function startWebhookReceiver(status: (n: number) => number = () => 200): Promise<WebhookReceiver> {
  const got: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status(got.length)).end();
      for (const w of waiters.filter((x) => got.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    until: (n) => new Promise<void>((resolve) => (got.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
