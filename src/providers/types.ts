import type { ProviderKind } from '../config/provider-kinds.ts';
import type { CanonicalRequest, RequestParameter } from '../canonical/request.ts';
import type { ModelKind, TaskRequest } from '../canonical/task.ts';
import type { FormData } from 'undici';
import type { StreamPart } from '../canonical/stream-part.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import type { Endpoint, ProviderConfig } from '../catalog/types.ts';
import type { SseEvent } from './sse/parse-sse.ts';

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A task's upstream call: JSON text, or multipart form data (undici's FormData: an audio file, images to edit). */
export interface UpstreamTaskRequest {
  url: string;
  headers: Record<string, string>;
  body: string | FormData;
}

/** Receives the stream parts an upstream answer decodes into, in order. */
export type PartSink = (part: StreamPart) => void;

export interface StreamDecoder {
  /** One SSE event from the upstream. Malformed data becomes an `error` part, never a throw. */
  onEvent(event: SseEvent): void;
  /** The upstream closed: close open blocks, emit what is still owed. */
  end(): void;
}

/**
 * How a streamed answer's body is framed: Server-Sent Events (every vendor but one), or AWS
 * event-stream binary frames (Bedrock's ConverseStream), each handed to the decoder as an
 * SseEvent (providers/eventstream/).
 */
export type StreamFraming = 'sse' | 'aws-eventstream';

/** An adapter for a provider reached over HTTP. Pure: no I/O of its own, but for `authorize`. */
export interface HttpProviderAdapter {
  readonly kind: ProviderKind;
  readonly transport: 'http';
  /** Default `sse`. */
  readonly streamFraming?: StreamFraming;
  /**
   * Adds the credentials that take I/O to get (a SigV4 signature over the final request, an
   * OAuth access token), per attempt, after `encodeRequest`. Rejects when none can be had.
   */
  authorize?(req: UpstreamRequest, endpoint: Endpoint): Promise<UpstreamRequest>;
  /** Parameters (chat-table names) this adapter can carry upstream, for some vendor. */
  readonly supportedParameters: ReadonlySet<RequestParameter>;
  /** Those this provider (its vendor profile) takes; the catalog narrows each endpoint's set from it. */
  supportedParametersFor?(provider: ProviderConfig): ReadonlySet<RequestParameter>;
  /**
   * Whether this provider's API reads a PDF sent inline (absent: it does not). Where no
   * endpoint of a request's plan does, the gateway sends the PDF's text instead (docs/pdf.md).
   */
  readsPdf?(provider: ProviderConfig): boolean;
  encodeRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest;
  decodeResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void;
  createStreamDecoder(endpoint: Endpoint, emit: PartSink): StreamDecoder;
  decodeError(status: number, body: string, headers: Record<string, string | string[] | undefined>, endpoint: Endpoint): GatewayError;
  /** The task kinds (embedding, image, speech, transcription) this adapter can carry; absent: chat only. */
  readonly tasks?: TaskCodec;
}

/**
 * How an adapter carries task requests (docs/modalities.md): one upstream call each, its
 * answer read whole (audio is binary) and decoded into a `task-result` part and a `usage` part.
 */
export interface TaskCodec {
  /** The kinds this adapter serves for this provider (its vendor profile). */
  kindsFor(provider: ProviderConfig): ReadonlySet<ModelKind>;
  /** Throws (a GatewayError) when this endpoint cannot carry the request: the plan moves on. */
  encode(req: CanonicalRequest, task: TaskRequest, endpoint: Endpoint): UpstreamTaskRequest;
  /**
   * The most embedding inputs one upstream call to this endpoint takes (absent: no limit
   * of the gateway's). A request with more is sent in parts and joined
   * (providers/http/call-upstream-task.ts).
   */
  maxInputs?(task: TaskRequest, endpoint: Endpoint): number;
  /**
   * True when this successful answer (its headers just arrived) is audio to hand over as it
   * arrives rather than whole: `audio-delta` parts (base64, `format` its content type) and a
   * `finish`, for a route that streams the file (a speech answer: docs/audio.md).
   */
  streamsAudio?(task: TaskRequest, headers: Record<string, string | string[] | undefined>): boolean;
  /** The upstream's successful answer, whole. Malformed answers emit an `error` part. */
  decode(task: TaskRequest, body: Buffer, headers: Record<string, string | string[] | undefined>, endpoint: Endpoint, emit: PartSink): void;
}

/** An adapter that produces answers in-process (the `sim` provider). */
export interface LocalProviderAdapter {
  readonly kind: ProviderKind;
  readonly transport: 'local';
  readonly supportedParameters: ReadonlySet<RequestParameter>;
  /** As HttpProviderAdapter's (absent: it does not read PDFs). */
  readsPdf?(provider: ProviderConfig): boolean;
  /** Streams the answer into `emit`; resolves when done. Stops early when `signal` aborts. */
  generate(req: CanonicalRequest, endpoint: Endpoint, emit: PartSink, signal: AbortSignal): Promise<void>;
}

export type ProviderAdapter = HttpProviderAdapter | LocalProviderAdapter;
