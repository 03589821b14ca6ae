// The reference point of DESIGN §11: the least a Node gateway can do. A node:http server
// that reads the request body, parses it as JSON, serializes it again and forwards it
// through an undici pool; the upstream's answer (JSON or SSE) is piped back chunk by
// chunk as it comes, with backpressure, and a client that goes away aborts the upstream
// request. No auth,
// no routing, no billing.
//
// Usage: node bench/bare-proxy.ts <upstream origin>. Prints {"port": N} on stdout once
// listening; exits when stdin closes (the parent died) or on SIGTERM.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const upstream = process.argv[2];
if (upstream === undefined) {
  process.stderr.write('usage: bare-proxy.ts <upstream origin>\n');
  process.exit(2);
}

const pool = new Pool(upstream, { keepAliveTimeout: 30_000, bodyTimeout: 600_000 });
const UPSTREAM_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer upstream-secret' };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"invalid json"}}');
      return;
    }
    const ctrl = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) ctrl.abort();
    });
    pool.request({ path: req.url ?? '/', method: 'POST', headers: UPSTREAM_HEADERS, body: JSON.stringify(body), signal: ctrl.signal }).then(
      (up) => {
        const type = up.headers['content-type'];
        res.writeHead(up.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
        // pipe() rather than stream.pipeline(): the same backpressure, without the
        // AbortController (and its DOMException) that pipeline() makes for every call.
        up.body.on('error', () => res.destroy());
        up.body.pipe(res);
      },
      () => {
        if (res.headersSent || res.destroyed) return;
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"upstream failed"}}');
      },
    );
  });
});
server.keepAliveTimeout = 65_000;

function shutdown(): void {
  server.closeAllConnections();
  server.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
