import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver on loopback answering 200: the events it got, parsed, and a wait for a count of them. */
export async function startEventReceiver() {
  const events: Array<{ id: string; type: string; data: any }> = [];
  const waiters: Array<{ ok: () => boolean; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end();
      for (const w of waiters.filter((x) => x.ok())) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    /** Resolves once `pred` holds for the events received. */
    until: (pred: (e: typeof events) => boolean) =>
      new Promise<void>((resolve) => (pred(events) ? resolve() : waiters.push({ ok: () => pred(events), resolve }))),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
