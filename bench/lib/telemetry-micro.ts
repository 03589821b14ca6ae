// The in-process half of bench/telemetry-overhead.ts: the CPU that Telemetry adds per
// request (requestStarted + requestEnded with a typical settlement record, and the
// gateway-overhead observation the route makes once the answer is ready), metrics and
// request log apart, the log written synchronously to /dev/null as production writes to
// stdout. Precise where the end-to-end comparison drowns in the machine's noise.

import { pino } from 'pino';
import { GatewayMetrics } from '../../src/observability/gateway-metrics.ts';
import { createRequestLogger } from '../../src/observability/request-log.ts';
import { Telemetry } from '../../src/observability/telemetry.ts';
import { SecretScrubber } from '../../src/providers/http/scrub-secrets.ts';
import type { SettlementRecord } from '../../src/store/ledger-records.ts';

const RECORD: SettlementRecord = {
  id: 'gen-1764000000-AbCdEfGhIjKlMn',
  accountId: 'acct_bench',
  keyHash: 'h',
  costNanos: 28_000n,
  holdRowWritten: true,
  model: 'acme/mock-1',
  provider: 'local',
  upstreamModel: 'mock-model',
  upstreamId: 'chatcmpl-1',
  dialect: 'chat',
  streamed: false,
  cancelled: false,
  status: 'success',
  errorCode: null,
  finishReason: 'stop',
  nativeFinishReason: 'stop',
  tokensPrompt: 10,
  tokensCompletion: 4,
  tokensCacheRead: 0,
  tokensCacheWrite: 0,
  tokensReasoning: 0,
  costBreakdown: null,
  latencyMs: 3,
  firstTokenMs: 2,
  attempts: [{ model: 'acme/mock-1', provider: 'local', endpoint: 'local/mock-model', status: 200, errorCode: null, ms: 2 }],
  httpReferer: null,
  xTitle: 'bench app',
  endUser: null,
  createdAt: '2026-11-24T00:00:00.000Z',
};

export interface MicroResult {
  variant: string;
  usPerRequest: number;
}

export function measureTelemetryInProcess(requests: number): MicroResult[] {
  const sources = {
    endpoints: () => ['local/mock-model'],
    circuitState: () => 'closed' as const,
    settlementQueueDepth: () => 0,
    settlementFailing: () => false,
  };
  const devnull = pino.destination({ dest: '/dev/null', sync: true });
  const scrubber = new SecretScrubber(['upstream-secret']);
  const make = (metrics: boolean, log: boolean): Telemetry =>
    new Telemetry({
      metrics: metrics ? new GatewayMetrics(sources, { defaultMetrics: false }) : null,
      log: createRequestLogger({ level: log ? 'info' : 'silent', destination: devnull }),
      tracing: null,
      scrubber: () => scrubber,
      knownModel: () => true,
    });
  const variants: Array<[string, Telemetry]> = [
    ['off', make(false, false)],
    ['metrics', make(true, false)],
    ['log', make(false, true)],
    ['on', make(true, true)],
  ];
  const end = { record: RECORD, error: null, party: { keyLabel: 'sk-sy-v1-abc...xyz' }, span: null };
  const results: MicroResult[] = [];
  for (const [variant, t] of variants) {
    for (let i = 0; i < 20_000; i++) {
      t.requestStarted('acme/mock-1', 'chat', 0, null);
      t.requestEnded(end, true, null);
      t.overheadMeasured('chat', false, 0.4);
    }
    const t0 = process.cpuUsage();
    for (let i = 0; i < requests; i++) {
      t.requestStarted('acme/mock-1', 'chat', 0, null);
      t.requestEnded(end, true, null);
      t.overheadMeasured('chat', false, 0.4);
    }
    const d = process.cpuUsage(t0);
    results.push({ variant, usPerRequest: (d.user + d.system) / requests });
  }
  return results;
}
