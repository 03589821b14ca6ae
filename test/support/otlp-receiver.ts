import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as the OTLP/HTTP JSON encoding carries it, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 2 server, 3 client (OTLP SpanKind). */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

/**
 * An in-process OTLP/HTTP traces receiver on loopback: the gateway's exporter posts JSON
 * (`@opentelemetry/exporter-trace-otlp-http` sends `application/json`) to /v1/traces.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | null = null;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(415).end();
          return;
        }
        this.receive(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` spans have arrived in all. */
  whenSpans(count: number): Promise<void> {
    if (this.spans.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private receive(body: any): void {
    for (const rs of body.resourceSpans ?? []) {
      const resource = flatten(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId === '' ? undefined : s.parentSpanId,
            name: s.name,
            kind: s.kind,
            attributes: flatten(s.attributes),
            status: s.status ?? {},
            resource,
          });
        }
      }
    }
    this.waiters = this.waiters.filter((w) => {
      if (this.spans.length < w.count) return true;
      w.resolve();
      return false;
    });
  }
}

function flatten(attributes: Array<{ key: string; value: any }> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of attributes ?? []) out[a.key] = value(a.value);
  return out;
}

function value(v: any): unknown {
  if (v === undefined || v === null) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(value);
  return v;
}
