import type { UpstreamEmulator } from '../../emulators/emulator-http.ts';
import type { RecordedUpstreamRequest, ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';

/** An emulator as a conformance upstream: `toStep` says each scripted step in the emulator's terms. */
export function emulatorUpstream<Step>(emulator: UpstreamEmulator<Step>, toStep: (step: ScriptedAnswer | ScriptedFault) => Step): Upstream {
  return new EmulatorUpstream(emulator, toStep);
}

class EmulatorUpstream<Step> implements Upstream {
  readonly scriptable = true;
  private readonly emulator: UpstreamEmulator<Step>;
  private readonly toStep: (step: ScriptedAnswer | ScriptedFault) => Step;

  constructor(emulator: UpstreamEmulator<Step>, toStep: (step: ScriptedAnswer | ScriptedFault) => Step) {
    this.emulator = emulator;
    this.toStep = toStep;
  }

  get baseUrl(): string {
    return this.emulator.baseUrl;
  }

  script(step: ScriptedAnswer | ScriptedFault): void {
    this.emulator.enqueue(this.toStep(step));
  }

  requests(): RecordedUpstreamRequest[] {
    return this.emulator.requests.map((r) => ({ path: r.path, headers: r.headers, body: r.body }));
  }

  reset(): void {
    this.emulator.reset();
  }

  close(): Promise<void> {
    return this.emulator.close();
  }
}
