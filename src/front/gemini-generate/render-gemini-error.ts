import type { GatewayError } from '../../errors/gateway-error.ts';
import type { RenderedError } from '../front-dialect.ts';
import { renderError } from '../shared/render-error.ts';

// A GatewayError → Google's error shape, `{error: {code, message, status, details}}`:
// `code` the HTTP status, `status` Google's canonical name for it (what the SDKs and
// Gemini CLI branch on), `details` a `google.rpc.ErrorInfo` whose `reason` is the gateway's
// error code (docs/errors.md) in Google's upper case, with `domain: "switchyard"`, and a
// `google.rpc.RetryInfo` when the gateway says when to retry. The HTTP status is the
// gateway's own (a spent balance or key limit is a 402, as on every endpoint), except
// that an unknown model is a 404, as Google answers for `models/<name>` it does not have.

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  // A balance or a key limit that cannot pay: a quota exhausted.
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  408: 'DEADLINE_EXCEEDED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export interface GeminiErrorBody {
  error: {
    code: number;
    message: string;
    status: string;
    details: Array<Record<string, unknown>>;
  };
}

/** The HTTP status the Gemini dialect answers with. */
export function geminiStatus(err: GatewayError): number {
  return err.code === 'model_not_found' ? 404 : err.status;
}

export function geminiErrorBody(err: GatewayError): GeminiErrorBody {
  const code = geminiStatus(err);
  const info: Record<string, unknown> = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: err.code.toUpperCase(),
    domain: 'switchyard',
  };
  const metadata = stringMetadata(err);
  if (metadata !== undefined) info.metadata = metadata;
  const details: Array<Record<string, unknown>> = [info];
  const retryAfter = err.headers?.['retry-after'] ?? err.headers?.['Retry-After'];
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter))
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
  return {
    error: { code, message: err.message, status: STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'), details },
  };
}

/**
 * ErrorInfo's `metadata` is a map of strings: the gateway's metadata (the parameter at
 * fault, a provider's name, a refusal's reason) as strings; objects (a provider's raw
 * answer) as JSON.
 */
function stringMetadata(err: GatewayError): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let any = false;
  if (err.param !== undefined) {
    out.param = err.param;
    any = true;
  }
  const metadata = err.metadata;
  if (metadata !== undefined) {
    for (const key in metadata) {
      const value = metadata[key];
      if (value === undefined || value === null) continue;
      out[key] = typeof value === 'string' ? value : JSON.stringify(value);
      any = true;
    }
  }
  return any ? out : undefined;
}

export function renderGeminiError(err: GatewayError): RenderedError {
  const rendered = renderError(err, geminiErrorBody(err));
  rendered.status = geminiStatus(err);
  return rendered;
}
