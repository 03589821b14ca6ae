import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';
import { openAIErrorBody, renderError, type OpenAIErrorBody } from '../shared/render-error.ts';

// A GatewayError → the chat dialect's HTTP error: OpenAI's error object, which is the
// spec's error record plus `param` (shared with the responses dialect).

export function renderChatError(err: GatewayError): RenderedError & { body: OpenAIErrorBody } {
  return renderError(err, openAIErrorBody(err));
}
