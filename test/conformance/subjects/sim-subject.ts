import { simAdapter } from '../../../src/providers/sim/sim-adapter.ts';
import type { CanonicalRequest } from '../../../src/canonical/request.ts';
import type { ConformanceSubject, ScriptedFault } from '../conformance-types.ts';
import { localUpstream } from '../upstreams/local-upstream.ts';

// The simulated provider answers on its own, so its cases check properties (a tool call
// fits the tool, JSON fits the schema) rather than scripted values; faults are asked for
// with its test hooks in the last user message.

const HOOKS: Readonly<Partial<Record<ScriptedFault['fault'], string>>> = {
  'server-error': '[sim:error]',
  'mid-stream': '[sim:error-midstream]',
};

function injectFault(fault: ScriptedFault, request: CanonicalRequest): CanonicalRequest {
  const hook = HOOKS[fault.fault];
  if (hook === undefined) throw new Error(`the simulator has no hook for ${fault.fault}`);
  return { ...request, messages: [{ role: 'user', content: [{ type: 'text', text: `Tell me a story. ${hook}` }] }] };
}

const ATTACHMENTS = 'the simulator acknowledges attachments without reading them';

export const SIM_SUBJECT: ConformanceSubject = {
  name: 'sim',
  provider: 'sim',
  adapter: simAdapter,
  config: { id: 'sim', kind: 'sim', name: 'Switchyard simulator', timeoutMs: 10_000, cacheFamily: 'prompt_cache_key', options: { chunk_delay_ms: 0 } },
  upstreamModel: 'sim-reasoner',
  startUpstream: () => Promise.resolve(localUpstream()),
  reasoningText: true,
  providerParameters: [],
  injectFault,
  skips: {
    'image-input': ATTACHMENTS,
    'pdf-input': ATTACHMENTS,
    'audio-input': ATTACHMENTS,
    'prompt-caching': 'the simulator reports no cache reads',
    'error-rejected': 'the simulator never refuses a request',
    'error-rate-limited': 'the simulator has no rate limit',
  },
};
