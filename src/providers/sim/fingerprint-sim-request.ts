import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { Endpoint } from '../../catalog/types.ts';

// Everything the simulator derives "at random" (the answer id, the choice of canned
// sentence, the reasoning signature) comes from a hash of what shapes the answer, so the
// same request always gets the same answer, streamed or not. Sampling parameters are left
// out on purpose: the simulator ignores them.

export function fingerprintSimRequest(req: CanonicalRequest, endpoint: Endpoint): Buffer {
  const shaping = [
    req.messages,
    req.tools ?? null,
    req.toolChoice ?? null,
    req.parallelToolCalls ?? null,
    req.responseFormat ?? null,
    req.reasoning ?? null,
    req.maxOutputTokens ?? null,
    req.stop ?? null,
  ];
  return createHash('sha256').update(endpoint.upstreamModel).update('\0').update(JSON.stringify(shaping)).digest();
}

/** A stable, opaque, base64 signature over the reasoning, like the ones real providers return. */
export function signSimReasoning(fingerprint: Buffer, reasoning: string): string {
  return createHash('sha512').update(fingerprint).update(reasoning).digest('base64');
}
