import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';
import { renderError } from '../shared/render-error.ts';

// A GatewayError → Anthropic's error envelope `{type: "error", error: {type, message}}`,
// whose inner object is still the spec's error record: the spec's `type` (which matches
// the HTTP status, as everywhere in the gateway), our `code`, and `metadata` when there is
// some. Anthropic's SDKs pick their error class by HTTP status and keep the body, so they
// need nothing more.

export interface MessagesErrorBody {
  type: 'error';
  error: { type: string; message: string; code: string; metadata?: Record<string, unknown> };
}

export function messagesErrorBody(err: GatewayError): MessagesErrorBody {
  const body: MessagesErrorBody = { type: 'error', error: { type: err.type, message: err.message, code: err.code } };
  if (err.metadata !== undefined) body.error.metadata = err.metadata;
  return body;
}

export function renderMessagesError(err: GatewayError): RenderedError {
  return renderError(err, messagesErrorBody(err));
}
