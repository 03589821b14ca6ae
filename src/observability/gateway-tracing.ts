import type { TracedAttempt } from '../providers/http/upstream-client.ts';
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { resourceFromAttributes } from '@opentelemetry/resources';
import type { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createRequire } from 'node:module';
import { operationOfDialect, operationOfKind } from './gen-ai-operation.ts';

// The OpenTelemetry SDK (exporter, resources, trace SDK: ~25 MB of RSS) is loaded only
// when tracing is on, through createRequire so that the constructor stays synchronous; a
// gateway without an OTLP endpoint never loads it. The API package (no-op spans) is small.
const require = createRequire(import.meta.url);

interface OtelSdk {
  W3CTraceContextPropagator: typeof W3CTraceContextPropagator;
  OTLPTraceExporter: typeof OTLPTraceExporter;
  resourceFromAttributes: typeof resourceFromAttributes;
  BatchSpanProcessor: typeof BatchSpanProcessor;
  TracerProvider: typeof TracerProvider;
  ATTR_SERVICE_NAME: string;
  ATTR_SERVICE_VERSION: string;
}

function loadSdk(): OtelSdk {
  return {
    W3CTraceContextPropagator: (require('@opentelemetry/core') as typeof import('@opentelemetry/core')).W3CTraceContextPropagator,
    OTLPTraceExporter: (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'))
      .OTLPTraceExporter,
    resourceFromAttributes: (require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')).resourceFromAttributes,
    BatchSpanProcessor: (require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')).BatchSpanProcessor,
    TracerProvider: (require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')).TracerProvider,
    ATTR_SERVICE_NAME: (require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions'))
      .ATTR_SERVICE_NAME,
    ATTR_SERVICE_VERSION: (require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions'))
      .ATTR_SERVICE_VERSION,
  };
}

type Env = Record<string, string | undefined>;

/** The OTLP/HTTP traces URL the standard variables name, or null when tracing is off. */
export function tracesEndpoint(env: Env): string | null {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base === undefined || base === '') return null;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * OpenTelemetry traces, built only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: a server span per model request and a
 * client span per upstream attempt, with the GenAI semantic conventions, exported over
 * OTLP/HTTP (JSON). The request's span is found again by its abort signal, which the
 * executor hands to the upstream client with each attempt: no context manager needed.
 */
export class GatewayTracing {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly propagator: W3CTraceContextPropagator;
  private readonly requests = new WeakMap<AbortSignal, Span>();

  constructor(url: string, version: string, env: Env) {
    const sdk = loadSdk();
    const serviceName = env.OTEL_SERVICE_NAME === undefined || env.OTEL_SERVICE_NAME === '' ? 'switchyard' : env.OTEL_SERVICE_NAME;
    this.propagator = new sdk.W3CTraceContextPropagator();
    this.provider = new sdk.TracerProvider({
      resource: sdk.resourceFromAttributes({ [sdk.ATTR_SERVICE_NAME]: serviceName, [sdk.ATTR_SERVICE_VERSION]: version }),
      spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new sdk.OTLPTraceExporter({ url }), scheduledDelayMillis: 1000 })],
    });
    this.tracer = this.provider.getTracer('switchyard', version);
  }

  /**
   * The server span of a model request, from `startedAt` (epoch ms); attempts under `signal`
   * become its children. Named `{operation} {model}`, the operation by the surface (`dialect`).
   */
  startRequest(requestModel: string, dialect: string, startedAt: number, signal: AbortSignal | null, traceparent: string | null): Span {
    // A caller's `traceparent` makes this span part of its trace; a malformed one is ignored.
    const parent = traceparent === null ? ROOT_CONTEXT : this.propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
    const operation = operationOfDialect(dialect);
    const span = this.tracer.startSpan(
      `${operation} ${requestModel}`,
      {
        kind: SpanKind.SERVER,
        startTime: startedAt,
        attributes: { 'gen_ai.operation.name': operation, 'gen_ai.request.model': requestModel, 'switchyard.route': dialect },
      },
      parent,
    );
    if (signal !== null) this.requests.set(signal, span);
    return span;
  }

  /**
   * A client span for one upstream attempt, child of the request's span; returns the
   * headers to send, with the W3C `traceparent` of the attempt added.
   */
  startAttempt(
    signal: AbortSignal,
    attempt: TracedAttempt,
    headers: Record<string, string>,
  ): { span: Span; headers: Record<string, string> } {
    const parent = this.requests.get(signal);
    const parentContext = parent === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, parent);
    const endpoint = attempt.endpoint;
    const operation = operationOfKind(attempt.model.kind);
    const span = this.tracer.startSpan(
      `${operation} ${endpoint.upstreamModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': operation,
          'gen_ai.provider.name': endpoint.provider.id,
          'gen_ai.request.model': endpoint.upstreamModel,
          'switchyard.model': attempt.model.id,
          'switchyard.endpoint': endpoint.id,
          ...(attempt.credential === undefined ? {} : { 'switchyard.credential': attempt.credential }),
        },
      },
      parentContext,
    );
    const carrier: Record<string, string> = { ...headers };
    this.propagator.inject(trace.setSpan(parentContext, span), carrier, defaultTextMapSetter);
    return { span, headers: carrier };
  }

  /** The attempt's answer began (status and headers arrived). */
  static attemptAnswered(span: Span, status: number): void {
    span.setAttribute('http.response.status_code', status);
    if (status >= 400) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }

  /** The attempt could not be sent or its connection failed. */
  static attemptFailed(span: Span, errorType: string): void {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  forget(signal: AbortSignal): void {
    this.requests.delete(signal);
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }

  async flush(): Promise<void> {
    await this.provider.forceFlush();
  }
}
