// What the benchmarks send, and the markers the upstream (bench/upstream-server.ts) reads
// in a request body to pick a timed mode.

export const PACE_MARKER = 'bench-pace';
export const HOLD_MARKER = 'bench-hold';
/** Paced mode: the first word at once, then one word every PACE_MS. */
export const PACE_MS = 25;
export const PACE_WORDS = 6;
export const paceWord = (k: number): string => `w${k} `;

/** The model the gateway serves (config from test/support/test-gateway.ts emulatorConfig). */
export const GATEWAY_MODEL = 'acme/mock-1';
/** The name the gateway sends upstream for it; direct and proxied calls use it too. */
export const UPSTREAM_MODEL = 'mock-model';

/** A small, realistic chat request: a system prompt, one user turn, two sampling fields. */
export function chatBody(model: string, stream: boolean, marker = ''): string {
  const body: Record<string, unknown> = {
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant. Answer in one short paragraph.' },
      { role: 'user', content: `What does a model gateway do, in two sentences?${marker === '' ? '' : ` (${marker})`}` },
    ],
    temperature: 0.7,
    max_tokens: 256,
  };
  if (stream) {
    body.stream = true;
    // What the gateway asks its upstream for too, so that all three paths carry the same chunks.
    body.stream_options = { include_usage: true };
  }
  return JSON.stringify(body);
}
