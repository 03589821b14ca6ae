// Portkey's open-source gateway (@portkey-ai/gateway, a dev dependency of the benchmark
// only), as the peer beside the bare proxy: its own build/start-server.js, run in this
// process unchanged except for where it listens. It is started as its bin would be
// (`--headless`, NODE_ENV=production: no UI, no log stream to the UI), with `--port=0`
// so the OS picks a free port, and its one server is bound to 127.0.0.1 (it binds every
// interface otherwise). Requests name their upstream in headers (`x-portkey-provider:
// openai`, `x-portkey-custom-host: <origin>/v1`), see bench/lib/targets.ts.
//
// Prints {"port": N} on stdout once listening (Portkey's own banner is dropped);
// exits when stdin closes (the parent died) or on SIGTERM.

import { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PORTKEY_ENTRY = join(ROOT, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

// The JSON line is ours; what Portkey prints on stdout (a start-up spinner and banner) is
// dropped. Its errors (console.error) still reach stderr.
const stdoutWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (_chunk: unknown, ...rest: unknown[]) => {
  const done = rest.find((x) => typeof x === 'function') as (() => void) | undefined;
  done?.();
  return true;
};

let server: Server | null = null;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the server as `this`
const listen = Server.prototype.listen;
Server.prototype.listen = function patchedListen(this: Server, ...args: unknown[]) {
  // @hono/node-server calls listen(port, hostname = undefined, callback).
  if (server === null && typeof args[0] === 'number') {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the server this patched method was called on
    server = this;
    this.once('listening', () => stdoutWrite(`${JSON.stringify({ port: (this.address() as AddressInfo).port })}\n`));
    args[1] = '127.0.0.1';
  }
  return (listen as (...a: unknown[]) => Server).apply(this, args);
} as typeof Server.prototype.listen;

function shutdown(): void {
  server?.closeAllConnections();
  server?.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();

process.env.NODE_ENV = 'production';
process.argv.push('--port=0', '--headless');
await import(pathToFileURL(PORTKEY_ENTRY).href);
