import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { SettlementRecord } from '../store/ledger-records.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { createRequestLogger } from './request-log.ts';
import { Telemetry } from './telemetry.ts';

const record = (over: Partial<SettlementRecord> = {}): SettlementRecord => ({
  id: 'gen-1-x',
  accountId: 'acct_1',
  keyHash: 'h',
  costNanos: 5000n,
  holdRowWritten: true,
  model: 'acme/m',
  provider: 'p',
  upstreamModel: 'm',
  upstreamId: null,
  dialect: 'chat',
  streamed: false,
  cancelled: false,
  status: 'success',
  errorCode: null,
  finishReason: 'stop',
  nativeFinishReason: 'stop',
  tokensPrompt: 1,
  tokensCompletion: 1,
  tokensCacheRead: 0,
  tokensCacheWrite: 0,
  tokensReasoning: 0,
  costBreakdown: null,
  latencyMs: 5,
  firstTokenMs: 3,
  attempts: [],
  httpReferer: null,
  xTitle: null,
  endUser: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

function rig() {
  const lines: string[] = [];
  const metrics = new GatewayMetrics(
    { endpoints: () => [], circuitState: () => 'closed', settlementQueueDepth: () => 3, settlementFailing: () => true },
    { defaultMetrics: false },
  );
  const upstreamScrubber = new SecretScrubber(['upk-secret']);
  const telemetry = new Telemetry({
    metrics,
    log: createRequestLogger({ destination: { write: (l: string) => void lines.push(l) } }),
    tracing: null,
    scrubber: () => upstreamScrubber,
    knownModel: (id) => id === 'acme/m',
  });
  return { lines, metrics, telemetry };
}

describe('Telemetry', () => {
  it('a dropped settlement is an error line and a counter', async () => {
    const { lines, metrics, telemetry } = rig();
    telemetry.settlementDropped(record());
    const line = JSON.parse(lines[0]!);
    assert.equal(line.level, 50);
    assert.equal(line.msg, 'settlement dropped');
    assert.equal(line.generation_id, 'gen-1-x');
    assert.equal(line.cost_usd, '0.000005');
    const text = await metrics.registry.metrics();
    assert.match(text, /^switchyard_settlements_dropped_total 1$/m);
    assert.match(text, /^switchyard_settlement_queue_depth 3$/m);
    assert.match(text, /^switchyard_settlement_failing 1$/m);
  });

  it('a request the client left is counted as cancelled with status 499', async () => {
    const { lines, metrics, telemetry } = rig();
    telemetry.requestStarted('acme/m', 'chat', 0, null);
    telemetry.requestEnded({ record: record({ cancelled: true }), error: null, party: { keyLabel: 'sk-...' }, span: null }, true, null);
    assert.equal(JSON.parse(lines[0]!).status, 499);
    const text = await metrics.registry.metrics();
    assert.match(text, /switchyard_requests_total\{[^}]*status_class="cancelled"[^}]*\} 1/);
    assert.match(text, /^switchyard_credit_holds_outstanding 0$/m);
  });
});
