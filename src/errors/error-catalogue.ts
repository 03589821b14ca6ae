// The one table of error codes. docs/errors.md lists the same codes; a test keeps them in step.
// `type` and `status` follow the spec's error table: the status always matches the type.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'insufficient_quota_error'
  | 'permission_error'
  | 'content_filter_error'
  | 'not_found_error'
  | 'timeout_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'provider_error'
  | 'service_unavailable_error'
  | 'internal_error';

export interface ErrorCodeInfo {
  status: number;
  type: ErrorType;
  /** When a client may retry the same request. */
  retryable: boolean;
  description: string;
}

export const ERROR_CODES = {
  invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'The body is not valid JSON, or not a JSON object.',
  },
  missing_parameter: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'A required field is absent (the message names it).',
  },
  invalid_parameter: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'A field has the wrong type or a value outside its range (the message names it).',
  },
  invalid_message: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'A message has a bad role, content or content part.',
  },
  unsupported_content: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'A content type the gateway cannot carry to any provider.',
  },
  unreadable_file: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description:
      'A PDF whose text the gateway had to extract (no endpoint of the plan reads PDFs, or the `file-parser` plugin asked for `pdf-text`) is malformed or encrypted, or its data: URI is not base64.',
  },
  too_many_cache_control_blocks: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'More than 4 blocks carry `cache_control`.',
  },
  reasoning_conflict: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'A parameter not allowed while reasoning is enabled (`top_k`, a forced `tool_choice`).',
  },
  option_not_enabled: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description:
      'An option that costs extra upstream (`service_tier` other than auto/default, `web_search_options`, the `web` plugin) that the operator has not enabled for the provider (`unpriced_options`).',
  },
  model_not_found: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'The model id is unknown, not enabled, or not available to this key.',
  },
  context_length_exceeded: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'The prompt does not fit the context window of any candidate endpoint.',
  },
  upstream_rejected_request: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description: 'The provider refused the request as invalid (its 400/404/413/422); `metadata.raw` has its answer.',
  },
  byok_key_invalid: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    description:
      'A key given for BYOK (`PUT /byok/{provider}`) failed its check at the provider (a signed call: refused, bad signature, unknown key, expired, timeout, unreachable, or not in the shape the provider takes); the message names the failure, `metadata.reason` its name ([byok](byok.md#storing-a-key)). Nothing was stored.',
  },
  authentication_required: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    description: 'Missing, malformed, unknown, revoked or expired key, or an inactive account.',
  },
  insufficient_quota: {
    status: 402,
    type: 'insufficient_quota_error',
    retryable: false,
    description:
      'The account balance (or the key limit, the account budget or the member budget: `metadata.reason` says which) cannot pay for the request.',
  },
  forbidden: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    description: 'The key may not use this endpoint (e.g. a management key calling a model).',
  },
  key_limit_reached: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    description: 'The account holds as many keys as the gateway allows (`accounts.max_keys`, default 1000): delete one to make room.',
  },
  content_filtered: { status: 403, type: 'content_filter_error', retryable: false, description: 'The input was flagged by moderation.' },
  byok_key_rejected: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    description:
      "The provider refused the account's own key (BYOK) with 401/403; `metadata.provider_name` names the provider. In mode `only` the operator's credentials are never used instead: replace the key (`PUT /byok/{provider}`).",
  },
  not_found: { status: 404, type: 'not_found_error', retryable: false, description: 'No such route or resource.' },
  timeout: { status: 408, type: 'timeout_error', retryable: true, description: 'The upstream did not answer in time.' },
  request_too_large: {
    status: 413,
    type: 'request_too_large',
    retryable: false,
    description: 'The request body is larger than the gateway accepts.',
  },
  file_too_large: {
    status: 413,
    type: 'request_too_large',
    retryable: false,
    description:
      'A PDF whose text the gateway had to extract is past a bound of `pdf:` (its size, pages, extracted characters, or the time its extraction took).',
  },
  rate_limited: { status: 429, type: 'rate_limit_error', retryable: true, description: 'A rate limit was exceeded; see `Retry-After`.' },
  provider_error: {
    status: 502,
    type: 'provider_error',
    retryable: true,
    description:
      'The provider failed or answered with something invalid; `metadata.provider_name` and `metadata.raw` (its answer) or `metadata.reason` (a connection that failed) say what.',
  },
  search_failed: {
    status: 502,
    type: 'provider_error',
    retryable: true,
    description:
      'The web search the gateway runs for the request (`plugins: [{id: "web"}]`, a `:online` model, `web_search_options`, `search_parameters`, the responses `web_search` tool) failed: the `search:` backend was unreachable, timed out or answered an error; `metadata.backend` names its kind, `metadata.reason` says why. Nothing is charged. With `on_error: "continue"` the request is answered without search instead.',
  },
  mcp_server_unavailable: {
    status: 502,
    type: 'provider_error',
    retryable: true,
    description:
      'An MCP server the request names could not list its tools (unreachable, too slow, its answer too large, or on a private address the operator does not allow); the message names it ([tools.md](tools.md#mcp-servers)).',
  },
  sso_unavailable: {
    status: 502,
    type: 'provider_error',
    retryable: true,
    description:
      "The dashboard's single sign-on provider (`oidc:`) could not be reached in time or answered something unreadable (its discovery document, keys or token endpoint); the message says which. Nothing was signed in: try again, or sign in with a key ([governance](governance.md#single-sign-on-openid-connect)).",
  },
  no_provider_available: {
    status: 503,
    type: 'service_unavailable_error',
    retryable: true,
    description: "No provider endpoint meets the request's requirements.",
  },
  shared_state_unavailable: {
    status: 503,
    type: 'service_unavailable_error',
    retryable: true,
    description:
      'A gateway of a fleet cannot reach its shared state (Redis or Postgres): model calls are refused, never served without holding their credits, until it answers again; `metadata.store` names which; see `Retry-After`.',
  },
  storage_unavailable: {
    status: 503,
    type: 'service_unavailable_error',
    retryable: true,
    description:
      "The gateway's database refuses writes (read-only, disk full, its writer thread restarting): no model calls, whose charges could not be recorded, nor other changes until it accepts them again; see `Retry-After`.",
  },
  byok_not_configured: {
    status: 503,
    type: 'service_unavailable_error',
    retryable: false,
    description: "BYOK is off: the gateway has no master key to seal accounts' keys with (`byok.master_key` in the configuration).",
  },
  webhook_secrets_not_configured: {
    status: 503,
    type: 'service_unavailable_error',
    retryable: false,
    description:
      'Webhooks are off: the gateway has no key to seal their signing secrets with (a fleet on Postgres needs `byok.master_key`; a gateway on SQLite makes its own key file): no webhook can be registered until the operator sets one.',
  },
  internal_error: {
    status: 500,
    type: 'internal_error',
    retryable: false,
    description: 'A bug in the gateway. Nothing secret is in the message.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
