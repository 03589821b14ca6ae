import type { GatewayError } from '../../errors/gateway-error.ts';

// A GatewayError → the chat dialect's HTTP error: the spec's error record plus OpenAI's
// `param`, which the official openai client exposes as `APIError.param`.

export interface ChatErrorBody {
  error: {
    message: string;
    type: string;
    code: string;
    param: string | null;
    metadata?: Record<string, unknown>;
  };
}

export function renderChatError(err: GatewayError): { status: number; headers: Record<string, string>; body: ChatErrorBody } {
  const body: ChatErrorBody = {
    error: { message: err.message, type: err.type, code: err.code, param: err.param ?? null },
  };
  if (err.metadata !== undefined) body.error.metadata = err.metadata;
  return { status: err.status, headers: err.headers === undefined ? {} : { ...err.headers }, body };
}
