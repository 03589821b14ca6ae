import { ERROR_CODES, type ErrorCode, type ErrorType } from './error-catalogue.ts';

/**
 * The one error the gateway throws. Each dialect's renderer turns it into its wire shape;
 * the spec's record is `{error: {message, type, code?, metadata?}}`.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly metadata: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string> | undefined;
  /** Whether routing may try another endpoint after this failure. */
  readonly retryable: boolean;
  /** The parameter at fault, for dialects that report it (`param`). */
  readonly param: string | undefined;
  /**
   * For the operator's request log only, never sent to a client: what the client's message
   * leaves out because it names the operator's network (a transport error's system text).
   */
  readonly detail: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: {
      metadata?: Record<string, unknown>;
      headers?: Record<string, string>;
      retryable?: boolean;
      param?: string;
      status?: number;
      detail?: string;
    } = {},
  ) {
    super(message);
    const info = ERROR_CODES[code];
    this.code = code;
    this.status = opts.status ?? info.status;
    this.type = info.type;
    this.metadata = opts.metadata;
    this.headers = opts.headers;
    this.retryable = opts.retryable ?? info.retryable;
    this.param = opts.param;
    this.detail = opts.detail;
  }

  toRecord(): { error: { message: string; type: string; code: string; metadata?: Record<string, unknown> } } {
    const error: { message: string; type: string; code: string; metadata?: Record<string, unknown> } = {
      message: this.message,
      type: this.type,
      code: this.code,
    };
    if (this.metadata !== undefined) error.metadata = this.metadata;
    return { error };
  }
}

export function invalidParameter(param: string, message: string): GatewayError {
  return new GatewayError('invalid_parameter', message, { param });
}

/** Anything thrown that is not a GatewayError becomes a 500 that leaks nothing. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError('internal_error', 'Internal server error');
}
