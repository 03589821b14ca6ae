import type { Catalog } from '../../catalog/catalog.ts';
import type { GatewayConfig } from '../../config/types.ts';
import type { SettlementQueue } from '../../billing/settlement-queue.ts';
import { buildInfo } from '../../config/build-info.ts';
import { GatewayMetrics } from '../../observability/gateway-metrics.ts';
import { GatewayTracing, tracesEndpoint } from '../../observability/gateway-tracing.ts';
import { createRequestLogger, logLevelFromEnv, stdoutLogSink } from '../../observability/request-log.ts';
import { Telemetry } from '../../observability/telemetry.ts';
import type { SecretScrubber } from '../../providers/http/scrub-secrets.ts';
import type { CircuitBreakers } from '../../routing/circuit-breaker.ts';
import type { ServiceOptions } from './service-options.ts';

/**
 * Metrics (unless `metrics.enabled: false`), the request log at `LOG_LEVEL`, traces when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Built once (it outlives reloads); it reads the
 * catalog and scrubber of the generation in force.
 */
export function wireTelemetry(
  config: GatewayConfig,
  opts: Pick<ServiceOptions, 'env' | 'logDestination' | 'operatorLogSink'>,
  catalog: () => Catalog,
  scrubber: () => SecretScrubber,
  breakers: CircuitBreakers,
  settlements: SettlementQueue,
): Telemetry {
  const level = logLevelFromEnv(opts.env);
  // The request log: a test's destination, else stdout through a sink that never blocks (null on a terminal).
  const logSink = opts.logDestination === undefined ? stdoutLogSink(level) : null;
  const destination = opts.logDestination ?? logSink ?? undefined;
  const metrics = config.metrics.enabled
    ? new GatewayMetrics({
        endpoints: () => catalog().models.flatMap((m) => m.endpoints.map((e) => e.id)),
        circuitState: (id) => breakers.state(id),
        settlementQueueDepth: () => settlements.queued,
        settlementFailing: () => settlements.failing,
        logLinesDropped: () => ({ stdout: logSink?.dropped ?? 0, stderr: opts.operatorLogSink?.dropped ?? 0 }),
      })
    : null;
  const url = tracesEndpoint(opts.env);
  const telemetry = new Telemetry({
    metrics,
    log: createRequestLogger({ level, ...(destination === undefined ? {} : { destination }) }),
    logSink,
    tracing: url === null ? null : new GatewayTracing(url, buildInfo().version, opts.env),
    scrubber,
    knownModel: (id) => catalog().get(id) !== undefined,
  });
  breakers.onOpen((id, failures) => telemetry.circuitOpened(id, failures));
  settlements.onDropped((record) => telemetry.settlementDropped(record));
  return telemetry;
}
