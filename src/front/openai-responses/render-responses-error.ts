import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';

// A GatewayError → the responses dialect's HTTP error. The Responses API answers errors
// with the same OpenAI error object as chat completions, which is also the spec's error
// record; `param` is what the official client exposes as `APIError.param`. Errors after a
// stream started are events instead (encode-responses-stream.ts).

export interface ResponsesErrorBody {
  error: {
    message: string;
    type: string;
    code: string;
    param: string | null;
    metadata?: Record<string, unknown>;
  };
}

export function renderResponsesError(err: GatewayError): RenderedError & { body: ResponsesErrorBody } {
  const body: ResponsesErrorBody = {
    error: { message: err.message, type: err.type, code: err.code, param: err.param ?? null },
  };
  if (err.metadata !== undefined) body.error.metadata = err.metadata;
  return { status: err.status, headers: err.headers === undefined ? {} : { ...err.headers }, body };
}
