import type { FastifyReply, RouteShorthandOptions } from 'fastify';
import type { DialectName } from '../canonical/dialect-name.ts';
import type { Telemetry } from '../observability/telemetry.ts';

// The gateway's own time per request (docs/operations.md#gateway-overhead): from the request
// received (Fastify's clock, `reply.elapsedTime`: its headers parsed by Node) to its answer
// handed to Node's HTTP response, minus the time spent waiting on upstreams
// (ExecutionResult.upstreamWaitMs). A non-streamed answer: to its serialized body; a stream:
// to its first byte (the answer's first event, keep-alives not counted), so a stream's
// length, its reader's pace and its settlement after the last event are not in it. Read
// from clocks the request already has: no timer, one clock read at the end.

/** The response header that carries the figure (`metrics.overhead_header: true`; non-streamed answers). */
export const OVERHEAD_HEADER = 'x-switchyard-overhead-ms';

/**
 * Records one request's own time, and for a non-streamed answer with the header on, sets
 * `X-Switchyard-Overhead-Ms` (ms, 3 decimals; the same figure the histogram observes).
 */
export function reportOverhead(
  reply: FastifyReply,
  telemetry: Telemetry,
  header: boolean,
  dialect: DialectName,
  streamed: boolean,
  elapsed: number,
  upstreamWaitMs: number,
): void {
  const ms = elapsed > upstreamWaitMs ? elapsed - upstreamWaitMs : 0;
  telemetry.overheadMeasured(dialect, streamed, ms);
  if (header && !streamed) reply.header(OVERHEAD_HEADER, ms.toFixed(3));
}

/**
 * Route options that make Fastify keep the request's clock (`reply.elapsedTime`): it does
 * for routes with an `onResponse` hook. With metrics on, their HTTP counter is one on every
 * route; with metrics off, a no-op hook on the model routes, so the header still has it.
 */
export function overheadClock(telemetry: Telemetry): Pick<RouteShorthandOptions, 'onResponse'> {
  return telemetry.metrics === null ? { onResponse: keepsTheClock } : {};
}

function keepsTheClock(_request: unknown, _reply: unknown, done: () => void): void {
  done();
}
