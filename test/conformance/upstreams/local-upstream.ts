import type { RecordedUpstreamRequest, ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';

/**
 * The "upstream" of a local adapter (sim): nothing to script, nothing received over HTTP.
 * What it records is the canonical request the adapter itself was handed (the subject
 * wraps the adapter to push into `received`), so cases can check what arrived.
 */
export function localUpstream(received: RecordedUpstreamRequest[]): Upstream {
  return {
    baseUrl: 'sim://local',
    scriptable: false,
    script(_step: ScriptedAnswer | ScriptedFault): void {
      throw new Error('a local adapter cannot be scripted');
    },
    requests(): RecordedUpstreamRequest[] {
      return received;
    },
    reset(): void {
      received.length = 0;
    },
    close(): Promise<void> {
      return Promise.resolve();
    },
  };
}
