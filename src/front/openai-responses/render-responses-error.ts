import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';
import { openAIErrorBody, renderError, type OpenAIErrorBody } from '../shared/render-error.ts';

// A GatewayError → the responses dialect's HTTP error. The Responses API answers errors
// with the same OpenAI error object as chat completions, which is also the spec's error
// record; `param` is what the official client exposes as `APIError.param`. Errors after a
// stream started are events instead (encode-responses-stream.ts).

export function renderResponsesError(err: GatewayError): RenderedError & { body: OpenAIErrorBody } {
  return renderError(err, openAIErrorBody(err));
}
