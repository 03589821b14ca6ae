// The conformance suite's vocabulary. A case (conformance-cases.ts) says what a user relies
// on, in canonical terms; a subject (subjects/) is one adapter (and vendor profile) with an
// upstream that can be scripted, the request checks in its own wire terms, and the cases
// it skips, each with a reason. docs/providers.md is rendered from the same data.

import type { CanonicalRequest, ReasoningEffort } from '../../src/canonical/request.ts';
import type { UnifiedFinishReason } from '../../src/canonical/finish-reason.ts';
import type { ProviderConfig } from '../../src/catalog/types.ts';
import type { ProviderAdapter } from '../../src/providers/types.ts';

export type CaseId =
  | 'plain-text'
  | 'streaming'
  | 'tool-call-round-trip'
  | 'parallel-tool-calls'
  | 'structured-output'
  | 'image-input'
  | 'pdf-input'
  | 'audio-input'
  | 'reasoning'
  | 'stop-sequences'
  | 'error-rejected'
  | 'error-rate-limited'
  | 'error-server'
  | 'error-mid-stream'
  | 'usage'
  | 'prompt-caching'
  | 'provider-parameters';

export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
  /** A thought signature, for upstreams that sign calls (Gemini); others ignore it. */
  signature?: string;
}

/** An upstream answer in canonical terms; each upstream renders it in its own wire format. */
export interface ScriptedAnswer {
  text?: string;
  /** Stream the text in this many pieces. */
  textChunks?: number;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finish?: Exclude<UnifiedFinishReason, 'error'>;
  /** Canonical usage: `input` includes `cacheRead`, `output` includes `reasoning`. */
  usage?: { input: number; cacheRead?: number; output: number; reasoning?: number };
  /** URLs the upstream cites (xAI live search). */
  citations?: string[];
}

export type ScriptedFault =
  | { fault: 'rejected'; message: string }
  | { fault: 'rate-limited'; retryAfterSeconds: number }
  | { fault: 'server-error' }
  /** The stream fails after its first content. */
  | { fault: 'mid-stream' };

export interface RecordedUpstreamRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** An upstream for one subject: an emulator on loopback, or nothing for a local adapter. */
export interface Upstream {
  /** Where the adapter's provider points. */
  readonly baseUrl: string;
  /** False for local adapters (sim): they answer on their own and cannot be scripted. */
  readonly scriptable: boolean;
  script(step: ScriptedAnswer | ScriptedFault): void;
  /** Requests received since the last reset, in order. */
  requests(): RecordedUpstreamRequest[];
  reset(): void;
  close(): Promise<void>;
}

export interface RequestCheck {
  caseId: CaseId;
  /** The canonical request the case sent. */
  request: CanonicalRequest;
  /** What the upstream received for it. */
  received: RecordedUpstreamRequest;
  /** The scripted answer's tool-call signature, where the case has one. */
  signature?: string;
}

export interface ConformanceSubject {
  /** Shown in test names and docs: `openai (xai profile)`, `google`, `sim`. */
  readonly name: string;
  /** The provider id it stands for in docs/providers.md. */
  readonly provider: string;
  readonly adapter: ProviderAdapter;
  /** The provider config, minus `baseUrl` (the upstream's). */
  readonly config: Omit<ProviderConfig, 'baseUrl'>;
  readonly upstreamModel: string;
  /** Starts this subject's upstream, once per test file. */
  startUpstream(): Promise<Upstream>;
  /** Asserts, in the vendor's wire terms, what the upstream received for a case (for a local adapter: the request it was handed). */
  checkRequest(check: RequestCheck): void;
  /** Whether answers carry the reasoning text (OpenAI's chat API returns only its token count). */
  readonly reasoningText: boolean;
  /** The effort the reasoning case asks for. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Provider-specific request fields (`req.extra`) it passes through; shown in the docs. */
  readonly providerParameters: readonly string[];
  /** False for a vendor whose usage reports no cached prompt tokens (they count as plain input). */
  readonly reportsCacheReads?: false;
  /** False for a vendor whose usage gives no reasoning-token breakdown (Bedrock's Converse): reasoning counts as plain output. */
  readonly reportsReasoningTokens?: false;
  /** Answers can cite sources (xAI live search): the provider-parameters case scripts some. */
  readonly citations?: boolean;
  /** For local adapters, which cannot be scripted: ask for a fault through the request itself. */
  injectFault?(fault: ScriptedFault, request: CanonicalRequest): CanonicalRequest;
  /** Cases this subject does not run, each with the reason. */
  readonly skips: Readonly<Partial<Record<CaseId, string>>>;
}
