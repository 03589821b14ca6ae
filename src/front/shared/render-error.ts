import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';

// A GatewayError → an HTTP error answer: its status, its own headers (Retry-After, ...)
// copied so the route may add to them, and the dialect's body. Both OpenAI dialects answer
// with the same body: the spec's error record plus OpenAI's `param`, which the official
// openai client exposes as `APIError.param`.

export interface OpenAIErrorBody {
  error: {
    message: string;
    type: string;
    code: string;
    param: string | null;
    metadata?: Record<string, unknown>;
  };
}

export function renderError<B>(err: GatewayError, body: B): RenderedError & { body: B } {
  return { status: err.status, headers: err.headers === undefined ? {} : { ...err.headers }, body };
}

export function openAIErrorBody(err: GatewayError): OpenAIErrorBody {
  const body: OpenAIErrorBody = {
    error: { message: err.message, type: err.type, code: err.code, param: err.param ?? null },
  };
  if (err.metadata !== undefined) body.error.metadata = err.metadata;
  return body;
}
