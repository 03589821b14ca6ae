import type { StreamPart } from '../../canonical/stream-part.ts';
import type { PartSink } from '../types.ts';
import { abortableSleep } from '../abortable-sleep.ts';

export interface SimPace {
  /** Wait before the first part after `stream-start` (time to first token). */
  firstChunkDelayMs: number;
  /** Wait before each later text, reasoning or tool-argument delta. */
  chunkDelayMs: number;
}

/** Reads `chunk_delay_ms` / `first_chunk_delay_ms` from provider options; anything but a non-negative number is 0. */
export function readSimPace(options: Record<string, unknown> | undefined): SimPace {
  return { firstChunkDelayMs: delay(options?.first_chunk_delay_ms), chunkDelayMs: delay(options?.chunk_delay_ms) };
}

function delay(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Emits the parts at the given pace. With no delays everything is emitted synchronously,
 * before this returns, with no timers: benchmarks count on the sim costing next to nothing.
 * Once `signal` aborts nothing more is emitted and the promise resolves.
 */
export function paceSimStream(parts: readonly StreamPart[], emit: PartSink, signal: AbortSignal, pace: SimPace): Promise<void> {
  if (pace.firstChunkDelayMs === 0 && pace.chunkDelayMs === 0) {
    for (const part of parts) {
      if (signal.aborted) break;
      emit(part);
    }
    return Promise.resolve();
  }
  return emitPaced(parts, emit, signal, pace);
}

async function emitPaced(parts: readonly StreamPart[], emit: PartSink, signal: AbortSignal, pace: SimPace): Promise<void> {
  let first = true;
  for (const part of parts) {
    if (part.type !== 'stream-start') {
      const wait = first ? pace.firstChunkDelayMs : isDelta(part) ? pace.chunkDelayMs : 0;
      first = false;
      if (wait > 0) await abortableSleep(wait, signal);
    }
    if (signal.aborted) return;
    emit(part);
  }
}

function isDelta(part: StreamPart): boolean {
  return part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-call-delta';
}
