import type { AuthContext } from '../auth/authenticate.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { SecretScrubber } from '../providers/http/scrub-secrets.ts';
import type { ExecutionSink } from '../routing/execute-attempts.ts';
import { silentTelemetry } from '../observability/telemetry.ts';
import { admitRequest } from './admit-request.ts';
import { releaseLease } from './in-flight-lease.ts';
import type { AdmittedRequest, ClientPresence, GenerationOutcome, PipelineDeps, PipelineParts, RequestInfo } from './pipeline-types.ts';
import { runGeneration } from './run-generation.ts';

export type { AdmittedRequest, ByokSource, ClientPresence, GenerationOutcome, PipelineDeps, RequestInfo } from './pipeline-types.ts';

/**
 * The spine of a model call after decoding: admit (admit-request.ts), then run
 * (run-generation.ts: moderate, execute, price, settle, record). Routes call `admit` then
 * `run`; each dialect brings its own sink. The generation record is built by
 * generation-record.ts for every outcome.
 */
export class GenerationPipeline {
  private readonly parts: PipelineParts;

  constructor(deps: PipelineDeps) {
    this.parts = {
      ...deps,
      now: deps.now ?? Date.now,
      scrubber: deps.scrubber ?? new SecretScrubber([]),
      telemetry: deps.telemetry ?? silentTelemetry(),
    };
  }

  /**
   * What can be refused from the key and the announced body size alone, before the body is
   * read or parsed (route-access.ts): a negative balance (402), a body larger than the key's
   * tier takes (413), a daily or account rate limit that refused this key moments ago and has
   * not lifted (429). Null: read the body and admit as usual. Costs no store call.
   */
  refusalBeforeBody(auth: AuthContext, contentLength: number): GatewayError | null {
    const account = auth.account;
    if (account.balanceNanos < 0n) {
      return new GatewayError('insufficient_quota', 'Insufficient credits: the account balance is negative. Add credits to continue.');
    }
    const tier = this.parts.rateLimits.tierOf(account.tier);
    if (tier.maxBodyBytes !== null && contentLength > tier.maxBodyBytes) {
      return new GatewayError(
        'request_too_large',
        `The request body is larger than the ${tier.name} tier accepts (${tier.maxBodyBytes} bytes).`,
      );
    }
    return this.parts.rateLimits.refusalBeforeBody(auth.key.hash, account.id, this.parts.now());
  }

  /** A refusal made before admission (from the headers): counted per key, reason and minute, and in the metrics. */
  countRefusal(auth: AuthContext, error: GatewayError): void {
    this.parts.settlements.countRefusal(auth.account.id, auth.key.hash, error.code, this.parts.now());
    this.parts.telemetry.refusedBeforeBody(error);
  }

  /** Admission (admit-request.ts): refused with a GatewayError carrying the answer's headers. */
  admit(auth: AuthContext, req: CanonicalRequest, info: RequestInfo): Promise<AdmittedRequest> {
    return admitRequest(this.parts, auth, req, info);
  }

  /** Runs and settles an admitted request (run-generation.ts); its `max_in_flight` lease is given back before it resolves. */
  run(admitted: AdmittedRequest, sink: ExecutionSink, abort: AbortController, client?: ClientPresence): Promise<GenerationOutcome> {
    // Most keys have no lease: the run's own promise, not one more layer around it (issue 29).
    if (!admitted.leased) return runGeneration(this.parts, admitted, sink, abort, client);
    return this.runLeased(admitted, sink, abort, client);
  }

  private async runLeased(
    admitted: AdmittedRequest,
    sink: ExecutionSink,
    abort: AbortController,
    client?: ClientPresence,
  ): Promise<GenerationOutcome> {
    try {
      return await runGeneration(this.parts, admitted, sink, abort, client);
    } finally {
      // Whatever the outcome, before the answer's last bytes: the client's next request finds the slot free.
      admitted.leased = false;
      await releaseLease(this.parts.inFlight, admitted.auth, admitted.generationId);
    }
  }
}
