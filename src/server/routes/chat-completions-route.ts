import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeChatRequest } from '../../front/openai-chat/decode-chat-request.ts';
import { encodeChatResponse, type ChatResponseMeta } from '../../front/openai-chat/encode-chat-response.ts';
import { ChatStreamEncoder } from '../../front/openai-chat/encode-chat-stream.ts';
import { renderChatError } from '../../front/openai-chat/render-chat-error.ts';
import { extractBearer } from '../../auth/authenticate.ts';
import { nanosToNumber } from '../../billing/money.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import type { GatewayError } from '../../errors/gateway-error.ts';
import { FoldingSink } from '../../pipeline/folding-sink.ts';
import type { AdmittedRequest, GenerationOutcome } from '../../pipeline/generation-pipeline.ts';
import type { ExecutionSink } from '../../routing/execute-attempts.ts';
import type { PlannedAttempt } from '../../routing/attempt.ts';
import type { Services } from '../services.ts';
import { SseWriter } from '../sse-writer.ts';
import { normalizeError } from '../normalize-error.ts';
import { clientAbortSignal, requestInfo } from '../request-helpers.ts';

/** POST /v1/chat/completions: decode, admit, run, encode. Errors go to the chat renderer. */
export function registerChatCompletionsRoute(app: FastifyInstance, services: Services, prefixes: readonly string[]): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const auth = services.auth.authenticate(extractBearer(request.headers.authorization));
    const req = decodeChatRequest(request.body);
    const admitted = services.pipeline.admit(auth, req, requestInfo(request, 'chat'));
    reply.header('x-generation-id', admitted.generationId);
    const signal = clientAbortSignal(reply);

    if (!req.stream) {
      const sink = new FoldingSink();
      const outcome = await services.pipeline.run(admitted, sink, signal);
      if (outcome.execution.error !== null) throw outcome.execution.error;
      return encodeChatResponse(sink.folder.response, meta(admitted, outcome));
    }

    reply.hijack();
    const sink = new ChatSseSink(new SseWriter(reply.raw), admitted);
    const outcome = await services.pipeline.run(admitted, sink, signal);
    sink.close(outcome);
    return reply;
  };
  for (const prefix of prefixes) {
    app.post(`${prefix}/chat/completions`, { errorHandler: chatErrorHandler }, handler);
  }
}

export function chatErrorHandler(error: unknown, _request: FastifyRequest, reply: FastifyReply): void {
  const out = renderChatError(normalizeError(error));
  reply.code(out.status).headers(out.headers).send(out.body);
}

function meta(admitted: AdmittedRequest, outcome: GenerationOutcome | null): ChatResponseMeta {
  const m: ChatResponseMeta = {
    id: admitted.generationId,
    created: admitted.created,
    model: outcome?.model ?? admitted.plan[0]!.model.id,
    provider: outcome?.provider ?? admitted.plan[0]!.endpoint.provider.id,
    excludeReasoning: admitted.req.reasoning?.exclude === true,
  };
  if (outcome?.cost) m.cost = nanosToNumber(outcome.cost.totalNanos);
  return m;
}

/**
 * Streams a chat answer. Nothing is written until the first part of an answer arrives,
 * so a failure before that is still a plain HTTP error with its own status.
 */
class ChatSseSink implements ExecutionSink {
  private readonly writer: SseWriter;
  private readonly admitted: AdmittedRequest;
  private encoder: ChatStreamEncoder | null = null;
  private attempt: PlannedAttempt;

  constructor(writer: SseWriter, admitted: AdmittedRequest) {
    this.writer = writer;
    this.admitted = admitted;
    this.attempt = admitted.plan[0]!;
  }

  get committed(): boolean {
    return this.encoder !== null;
  }

  beginAttempt(attempt: PlannedAttempt): void {
    this.attempt = attempt;
  }

  part(part: StreamPart): void {
    let encoder = this.encoder;
    if (encoder === null) {
      if (part.type === 'stream-start' || part.type === 'usage') return;
      encoder = this.open();
    }
    this.writer.write(encoder.push(part));
  }

  waitForDrain(): Promise<void> | null {
    return this.writer.waitForDrain();
  }

  close(outcome: GenerationOutcome): void {
    const error = outcome.execution.error;
    if (this.encoder === null) {
      if (outcome.execution.cancelled) return this.writer.end();
      if (error !== null) return this.sendPlainError(error);
      this.open();
    }
    const encoder = this.encoder!;
    if (error !== null || outcome.execution.cancelled) return this.writer.end(error !== null ? encoder.error(error) : '');
    this.writer.end(encoder.end(outcome.cost ? nanosToNumber(outcome.cost.totalNanos) : undefined));
  }

  private open(): ChatStreamEncoder {
    const encoder = new ChatStreamEncoder({
      id: this.admitted.generationId,
      created: this.admitted.created,
      model: this.attempt.model.id,
      provider: this.attempt.endpoint.provider.id,
      excludeReasoning: this.admitted.req.reasoning?.exclude === true,
    });
    this.encoder = encoder;
    this.writer.start({ 'x-generation-id': this.admitted.generationId });
    this.writer.write(encoder.start());
    return encoder;
  }

  private sendPlainError(error: GatewayError): void {
    const out = renderChatError(error);
    this.writer.sendJson(out.status, { ...out.headers, 'x-generation-id': this.admitted.generationId }, out.body);
  }
}
