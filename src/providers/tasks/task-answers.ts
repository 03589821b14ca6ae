import type { StreamPart } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { GatewayError } from '../../errors/gateway-error.ts';
import type { PartSink } from '../types.ts';

// What every task codec does with an answer: parse it, say clearly when it is not what the
// vendor documents, and report usage in the canonical units.

/** The answer body as JSON, or null after emitting an `error` part. */
export function parseTaskJson<T>(body: Buffer, endpoint: Endpoint, emit: PartSink): T | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value !== null && typeof value === 'object') return value as T;
  } catch {
    // reported below
  }
  emit(malformedTaskAnswer(endpoint, 'the body is not a JSON object'));
  return null;
}

export function malformedTaskAnswer(endpoint: Endpoint, what: string): StreamPart {
  return {
    type: 'error',
    error: new GatewayError('provider_error', `The provider returned an answer this gateway cannot read: ${what}.`, {
      metadata: { provider_name: endpoint.provider.id },
    }),
  };
}

/**
 * Usage of a task: prompt tokens in, output tokens (image tokens, audio tokens) out. The
 * counts are the vendor's: a negative, fractional or non-numeric one (an OpenAI-compatible
 * server may send anything) is taken as a non-negative integer, so that it never credits an
 * account nor makes the charge's BigInt throw.
 */
export function taskUsage(input: unknown, output: unknown, raw?: unknown): Usage {
  const usage: Usage = { input: count(input), output: count(output), cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  if (raw !== undefined) usage.raw = raw;
  return usage;
}

function count(value: unknown): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? Math.min(Math.ceil(value), Number.MAX_SAFE_INTEGER) : 0;
}

/** A vector as a vendor sends it: an array of numbers, or base64 of little-endian float32s. */
export function decodeVector(value: unknown): number[] | null {
  if (Array.isArray(value)) {
    for (const x of value) if (typeof x !== 'number' || !Number.isFinite(x)) return null;
    return value as number[];
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) return null;
    const out = new Array<number>(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  return null;
}
