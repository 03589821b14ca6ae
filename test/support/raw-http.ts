import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface EarlyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  json: any;
  /** Body bytes the client had written when the answer's headers arrived. */
  sentWhenAnswered: number;
  /** The body's full length (its Content-Length). */
  total: number;
}

/**
 * POSTs a body of `total` bytes (`head` then spaces: valid JSON however much is sent),
 * written in 64 KiB pieces as fast as the server takes them, and stops writing as soon
 * as the answer arrives: what was written by then says whether the server answered
 * before reading the body.
 */
export function postLargeBody(
  url: string,
  headers: Record<string, string>,
  head: string,
  total: number,
  opts: { chunked?: boolean } = {},
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const reqHeaders: Record<string, string> = { 'content-type': 'application/json', ...headers };
    if (opts.chunked !== true) reqHeaders['content-length'] = String(total);
    const req = request(url, { method: 'POST', headers: reqHeaders, agent: false });
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const first = Buffer.from(head);
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json, sentWhenAnswered, total });
        req.destroy();
      });
      res.on('error', reject);
    });
    // The server may close while we still write (EPIPE, ECONNRESET): only an error before any answer fails.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = (): void => {
      while (!answered && sent < total) {
        const chunk = sent === 0 ? first : piece.subarray(0, Math.min(piece.length, total - sent));
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** Resolves when the server closes `socket` (end or reset), with the text it sent before. */
export function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
  });
}

/** A raw TCP connection to the gateway's origin (http://127.0.0.1:<port>). */
export function openSocket(origin: string): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}
