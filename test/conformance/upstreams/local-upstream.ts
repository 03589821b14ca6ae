import type { RecordedUpstreamRequest, ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';

/** The "upstream" of a local adapter (sim): nothing to script, nothing received over HTTP. */
export function localUpstream(): Upstream {
  return {
    baseUrl: 'sim://local',
    scriptable: false,
    script(_step: ScriptedAnswer | ScriptedFault): void {
      throw new Error('a local adapter cannot be scripted');
    },
    requests(): RecordedUpstreamRequest[] {
      return [];
    },
    reset(): void {},
    close(): Promise<void> {
      return Promise.resolve();
    },
  };
}
