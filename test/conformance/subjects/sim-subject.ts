import assert from 'node:assert/strict';
import { simAdapter } from '../../../src/providers/sim/sim-adapter.ts';
import type { CanonicalRequest } from '../../../src/canonical/request.ts';
import type { LocalProviderAdapter } from '../../../src/providers/types.ts';
import type { ConformanceSubject, RecordedUpstreamRequest, RequestCheck, ScriptedFault } from '../conformance-types.ts';
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

/** The canonical requests the simulator was handed, in order (the local upstream's record). */
const received: RecordedUpstreamRequest[] = [];

const recordingSimAdapter: LocalProviderAdapter = {
  ...simAdapter,
  generate(req, endpoint, emit, signal) {
    received.push({ path: 'sim', headers: {}, body: req });
    return simAdapter.generate(req, endpoint, emit, signal);
  },
};

/** The simulator has no wire: it must be handed the case's canonical request as it was sent (streaming aside). */
function checkSimRequest({ request, received: got }: RequestCheck): void {
  const { stream: _sent, ...sent } = request;
  const { stream: _got, ...handed } = got.body as CanonicalRequest;
  assert.deepEqual(handed, sent, 'the simulator was handed the request as the case sent it');
}

const ATTACHMENTS = 'the simulator acknowledges attachments without reading them';

export const SIM_SUBJECT: ConformanceSubject = {
  name: 'sim',
  provider: 'sim',
  adapter: recordingSimAdapter,
  config: {
    id: 'sim',
    kind: 'sim',
    name: 'Switchyard simulator',
    timeoutMs: 10_000,
    cacheFamily: 'prompt_cache_key',
    options: { chunk_delay_ms: 0 },
  },
  upstreamModel: 'sim-reasoner',
  startUpstream: () => Promise.resolve(localUpstream(received)),
  checkRequest: checkSimRequest,
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
