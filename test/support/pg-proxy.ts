import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

// A loopback TCP proxy between a gateway's Postgres pool and the test Postgres, reading the
// frontend protocol (https://www.postgresql.org/docs/current/protocol-message-formats.html)
// to cut a connection at a chosen moment:
//
// - `loseNextSettlementCommit()`: the next COMMIT of a transaction that settled records (it
//   upserted the usage_daily rollup: a batch of hold rows alone does not) is forwarded, the
//   server's answer awaited (so the commit happened) and, instead of relaying it, both
//   sockets are destroyed: the client never learns that its batch committed.
// - `refuse(true)`: every connection is dropped at once (Postgres unreachable) until `refuse(false)`.
//
// node-postgres sends COMMIT as a simple query ('Q'); statements with parameters go as
// Parse ('P', its text, a name for named statements) then Bind ('B', naming the statement).

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export interface PgProxy {
  /** postgres:// URL of the proxy for the database of `databaseUrl`. */
  url: string;
  loseNextSettlementCommit(): Promise<void>;
  /**
   * Once the next batch of hold rows only (no settlement) has committed and its answer was
   * relayed, refuses connections, as `refuse(true)`: Postgres goes away after a request's
   * hold is durable and before its settlement.
   */
  refuseAfterNextHoldCommit(): Promise<void>;
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/** C string at `at` in `buf`: its text and the offset after its NUL. */
function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

export async function startPgProxy(databaseUrl: string): Promise<PgProxy> {
  const target = new URL(databaseUrl);
  let armed: (() => void) | null = null;
  let holdArmed: (() => void) | null = null;
  let refusing = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('close', cut);
    upstream.on('close', cut);
    let startup = true;
    let pending = Buffer.alloc(0);
    const statements = new Map<string, string>();
    let settlesRecords = false;
    let writesHolds = false;
    let held = false; // the COMMIT is out: the server's answer is not relayed
    upstream.on('data', (d: Buffer) => {
      if (!held) client.write(d);
      else cut();
    });
    client.on('data', (d: Buffer) => {
      if (held) return;
      pending = Buffer.concat([pending, d]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const len = pending.readInt32BE(0);
          if (pending.length < len) return;
          const code = pending.readInt32BE(4);
          upstream.write(pending.subarray(0, len));
          pending = pending.subarray(len);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5) return;
        const len = pending.readInt32BE(1) + 1;
        if (pending.length < len) return;
        const message = pending.subarray(0, len);
        pending = pending.subarray(len);
        const type = String.fromCharCode(message[0]!);
        let text: string | null = null;
        if (type === 'Q') text = cstring(message, 5)[0];
        else if (type === 'P') {
          const [name, at] = cstring(message, 5);
          statements.set(name, cstring(message, at)[0]);
        } else if (type === 'B') {
          const [, at] = cstring(message, 5);
          text = statements.get(cstring(message, at)[0]) ?? null;
        }
        if (text !== null && /INSERT INTO usage_daily \(/i.test(text)) settlesRecords = true;
        if (text !== null && /INSERT INTO reservations \(/i.test(text)) writesHolds = true;
        upstream.write(message);
        if (text !== null && /^\s*ROLLBACK\s*;?\s*$/i.test(text)) settlesRecords = writesHolds = false;
        if (text !== null && /^\s*COMMIT\s*;?\s*$/i.test(text)) {
          if (writesHolds && !settlesRecords && holdArmed !== null) {
            const done = holdArmed;
            holdArmed = null;
            // Relayed by the listener above first; then Postgres is gone.
            upstream.once('data', () =>
              setImmediate(() => {
                refusing = true;
                for (const s of sockets) s.destroy();
                done();
              }),
            );
          }
          writesHolds = false;
          if (settlesRecords && armed !== null) {
            held = true;
            const done = armed;
            armed = null;
            upstream.once('data', () => setImmediate(done));
            return;
          }
          settlesRecords = false;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    loseNextSettlementCommit: () => new Promise<void>((resolve) => (armed = resolve)),
    refuseAfterNextHoldCommit: () => new Promise<void>((resolve) => (holdArmed = resolve)),
    refuse(on) {
      refusing = on;
      if (on) for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
