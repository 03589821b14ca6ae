// The named objects of the OpenAPI document (`components.schemas`): what the routes answer,
// referenced from their responses (`$ref: 'Model#'` in a route schema; register-openapi.ts
// adds each with `app.addSchema`). They document the answers, are checked by
// test/e2e/openapi.test.ts (each documented answer of a real gateway validated against its
// schema), and serialize the strict routes' answers (answer-serializer.ts: what a schema
// does not describe is not written; the model calls and errors keep JSON.stringify). The
// gateway's own objects are closed (`additionalProperties: false`: a field added to an
// answer must be added here, or it is not answered); the dialects' objects (a chat
// completion) are outlines, open to the fields upstreams add.

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const int: Schema = { type: 'integer' };
const intOrNull: Schema = { type: ['integer', 'null'] };
/** How often a key's limit resets; null: never (docs/billing.md). */
const limitReset: Schema = { type: ['string', 'null'], enum: ['daily', 'weekly', 'monthly', null] };
const num: Schema = { type: 'number' };
const numOrNull: Schema = { type: ['number', 'null'] };
const bool: Schema = { type: 'boolean' };
const ref = (name: string): Schema => ({ $ref: `${name}#` });
const strings: Schema = { type: 'array', items: str };
/** USD as decimal text (money is never a float in the store; `_usd` fields carry it exactly). */
const usdText: Schema = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' };

/** Percentiles of the last 30 minutes (null: no sample). */
const percentiles: Schema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { p50: num, p75: num, p90: num, p99: num },
};
/** An endpoint's live health, as /models/{id}/endpoints and /admin/health give it. */
const healthFigures: Record<string, Schema> = {
  uptime_last_5m: numOrNull,
  uptime_last_30m: numOrNull,
  uptime_last_1d: numOrNull,
  latency_last_30m: percentiles,
  throughput_last_30m: percentiles,
};
/** An object with exactly these fields, all present (`optional` ones may be absent). */
function closed(description: string, fields: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: 'object',
    description,
    properties: fields,
    required: Object.keys(fields).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}
function open(description: string, fields: Record<string, Schema>, required: string[]): Schema {
  return { type: 'object', description, properties: fields, required, additionalProperties: true };
}
const dataOf = (name: string, description: string): Schema => closed(description, { data: ref(name) });
const pageOf = (name: string, description: string): Schema =>
  closed(description, { data: { type: 'array', items: ref(name) }, next_cursor: strOrNull });

const pricing = closed(
  'USD per token (per request, image, character or audio second) as decimal text; optional prices only where they apply.',
  {
    prompt: usdText,
    completion: usdText,
    request: usdText,
    image: usdText,
    input_cache_read: usdText,
    input_cache_write: usdText,
    image_output: usdText,
    character: usdText,
    audio_second: usdText,
  },
  ['request', 'image', 'input_cache_read', 'input_cache_write', 'image_output', 'character', 'audio_second'],
);

/** What a key may reach (docs/governance.md#allowlists): its own lists, or its account's. */
const allowlist: Record<string, Schema> = {
  allowed_models: { type: ['array', 'null'], items: str, description: 'Model ids and globs; null: no list.' },
  allowed_providers: { type: ['array', 'null'], items: str, description: 'Provider ids; null: no list.' },
  max_price: {
    oneOf: [
      { type: 'null' },
      closed('USD per million tokens, decimal text.', { prompt: usdText, completion: usdText }, ['prompt', 'completion']),
    ],
  },
  allowed_mcp_servers: {
    type: ['array', 'null'],
    items: str,
    description: 'MCP servers (`server` or `server/tool`) whose tools the gateway may run; null: no list.',
  },
};

export const RESPONSE_COMPONENTS: Record<string, Schema> = {
  Error: closed('An error in the OpenAI shape (the gateway API, the admin API; docs/errors.md).', {
    error: closed('The error.', { message: str, type: str, code: str, param: strOrNull, metadata: { type: 'object' } }, [
      'param',
      'metadata',
    ]),
  }),
  AnthropicError: closed("An error in Anthropic's shape (the messages routes).", {
    type: { const: 'error' },
    error: closed('The error.', { type: str, message: str, code: str }, ['code']),
  }),
  GoogleError: closed("An error in Google's shape (the Gemini routes).", {
    error: closed('The error.', { code: int, message: str, status: str, details: { type: 'array', items: { type: 'object' } } }, [
      'details',
    ]),
  }),
  Model: closed(
    "A model record: OpenAI's model object (object, created, owned_by) with OpenRouter's fields (src/catalog/encode-model-record.ts).",
    {
      id: str,
      kind: { enum: ['chat', 'embedding', 'image', 'speech', 'transcription'] },
      object: { const: 'model' },
      created: int,
      owned_by: str,
      name: str,
      provider: str,
      description: str,
      context_length: int,
      pricing,
      capabilities: strings,
      architecture: closed('What the model takes and makes.', { modality: str, input_modalities: strings, output_modalities: strings }),
      top_provider: closed('The cheapest endpoint (the default route).', { context_length: int, max_completion_tokens: intOrNull }),
      supported_parameters: strings,
    },
  ),
  ModelList: closed('The model list.', { object: { const: 'list' }, data: { type: 'array', items: ref('Model') } }),
  Health: closed('Liveness.', { status: { const: 'ok' } }),
  Credits: closed("The account's credits, in USD.", { data: closed('Totals.', { total_credits: num, total_usage: num }) }),
  KeyStatus: closed('The status of the calling key.', {
    data: closed(
      'The key.',
      {
        label: str,
        name: str,
        usage: num,
        limit: numOrNull,
        limit_remaining: numOrNull,
        limit_reset: limitReset,
        is_free_tier: bool,
        tier: str,
        tier_name: str,
        rate_limit: { oneOf: [{ type: 'null' }, closed('Requests per interval.', { requests: intOrNull, interval: str })] },
        is_management_key: bool,
        is_active: bool,
        is_org_key: bool,
        created_at: str,
        last_used: strOrNull,
        org_id: str,
        org_name: str,
        balance: num,
        account_type: str,
        usage_stats: { type: 'object' },
      },
      ['org_id', 'org_name', 'balance', 'account_type', 'usage_stats'],
    ),
  }),
  Account: closed('An account (the admin API).', {
    id: str,
    name: str,
    account_type: { enum: ['user', 'organization'] },
    tier: str,
    default_model: strOrNull,
    balance: num,
    balance_usd: usdText,
    is_active: bool,
    limits_override: {
      type: ['object', 'null'],
      additionalProperties: false,
      description: "Rate limits overriding the tier's (absent: the tier's).",
      properties: { requests_per_minute: int, requests_per_day: intOrNull, account_requests_per_minute: intOrNull },
    },
    retention_days: intOrNull,
    budget: {
      type: ['object', 'null'],
      additionalProperties: false,
      description: 'What the account may spend per window (docs/budgets.md); null: no budget.',
      required: ['amount', 'amount_usd', 'reset', 'alert_thresholds'],
      properties: {
        amount: num,
        amount_usd: usdText,
        reset: limitReset,
        alert_thresholds: { type: ['array', 'null'], items: { type: 'integer' }, description: 'Percentages; null: alerts.thresholds.' },
      },
    },
    created_at: str,
    ...allowlist,
    guardrails: {
      type: ['array', 'null'],
      description: 'Rules applied to every text the model will read (docs/governance.md#guardrails).',
      items: closed('A rule.', { detector: str, action: { enum: ['block', 'redact'] }, pattern: str, name: str }, ['pattern', 'name']),
    },
  }),
  AccountAnswer: dataOf('Account', 'One account.'),
  AccountPage: pageOf('Account', 'A page of accounts.'),
  Key: closed('A key as the admin API shows it (never the key itself: its hash and label).', {
    hash: str,
    account_id: str,
    name: str,
    label: str,
    kind: { enum: ['admin', 'management', 'api'] },
    status: { enum: ['active', 'revoked', 'disabled', 'expired'] },
    disabled: bool,
    disabled_by: strOrNull,
    limit: numOrNull,
    limit_usd: { type: ['string', 'null'] },
    limit_reset: limitReset,
    usage: num,
    usage_usd: usdText,
    expires_at: strOrNull,
    created_at: str,
    updated_at: strOrNull,
    last_used: strOrNull,
    ...allowlist,
    max_in_flight: intOrNull,
  }),
  KeyPage: pageOf('Key', 'A page of keys.'),
  KeyAnswer: dataOf('Key', 'One key.'),
  AdminKeyRotated: closed(
    'A key just rotated: its new secret is in `key`, this once; the old one works until `previous_key_expires_at` (null: it stopped at once).',
    {
      data: ref('Key'),
      key: str,
      previous_key_expires_at: strOrNull,
    },
  ),
  AdminKeyCreated: closed('A key just made: the key itself is in `key`, this once.', { data: ref('Key'), key: str }),
  AccountKey: closed("An API key as its account's management key sees it (the key-management API, /keys).", {
    hash: str,
    name: str,
    label: str,
    disabled: bool,
    status: { enum: ['active', 'revoked', 'disabled', 'expired'] },
    limit: numOrNull,
    limit_remaining: numOrNull,
    limit_reset: limitReset,
    usage: num,
    usage_daily: num,
    usage_weekly: num,
    usage_monthly: num,
    member_id: strOrNull,
    created_at: str,
    updated_at: strOrNull,
    expires_at: strOrNull,
    last_used: strOrNull,
    ...allowlist,
    max_in_flight: intOrNull,
  }),
  Member: closed('A member of an account (docs/governance.md): allowed_models and budget are enforced by the allowlist and budget parts.', {
    id: str,
    account_id: str,
    email: str,
    name: str,
    role: { enum: ['owner', 'admin', 'member', 'viewer'] },
    allowed_models: { type: ['array', 'null'], items: str },
    budget: {
      oneOf: [
        { type: 'null' },
        closed("What the member's keys may spend together per window (docs/budgets.md).", {
          amount: num,
          amount_usd: usdText,
          reset: { enum: ['daily', 'weekly', 'monthly', 'none'] },
        }),
      ],
    },
    created_at: str,
    updated_at: strOrNull,
  }),
  MemberList: closed("The account's members, oldest first.", { data: { type: 'array', items: ref('Member') } }),
  MemberAnswer: dataOf('Member', 'One member.'),
  MemberRemoved: closed('A member removed, and what became of their keys.', {
    deleted: { const: true },
    keys: { enum: ['disable', 'reassign'] },
    to: strOrNull,
    key_hashes: strings,
  }),
  AccountKeyPage: pageOf('AccountKey', "A page of the account's keys."),
  AccountKeyAnswer: dataOf('AccountKey', 'One key of the account.'),
  AccountKeyRotated: closed(
    'A key just rotated: its new secret is in `key`, this once; the old one works until `previous_key_expires_at` (null: it stopped at once).',
    {
      data: ref('AccountKey'),
      key: str,
      previous_key_expires_at: strOrNull,
    },
  ),
  AccountKeyCreated: closed('A key just made: the key itself is in `key`, this once.', { data: ref('AccountKey'), key: str }),
  ActivityRecord: closed('A generation record as lists show it (the admin API, /activity).', {
    id: str,
    account_id: str,
    key_hash: strOrNull,
    model: str,
    provider_name: strOrNull,
    upstream_model: strOrNull,
    api_type: strOrNull,
    streamed: bool,
    cancelled: bool,
    status: str,
    error_code: strOrNull,
    finish_reason: strOrNull,
    tokens_prompt: int,
    tokens_completion: int,
    native_tokens_cached: int,
    native_tokens_cache_write: int,
    native_tokens_reasoning: int,
    total_cost: num,
    total_cost_usd: usdText,
    latency: numOrNull,
    time_to_first_token: numOrNull,
    app_title: strOrNull,
    created_at: str,
    attempt_count: int,
    byok: bool,
  }),
  ActivityPage: pageOf('ActivityRecord', 'A page of generation records, newest first.'),
  LedgerEntry: closed('A ledger entry: credits granted, a charge, a refund.', {
    id: int,
    account_id: str,
    key_hash: strOrNull,
    kind: str,
    amount: num,
    amount_usd: usdText,
    generation_id: strOrNull,
    note: strOrNull,
    created_at: str,
  }),
  LedgerPage: pageOf('LedgerEntry', 'A page of ledger entries, newest first.'),
  AuditEntry: closed('An audit log entry: who changed what.', {
    id: int,
    at: str,
    actor: closed('Who acted.', { key_hash: strOrNull, label: strOrNull, account_id: strOrNull }),
    action: str,
    target: strOrNull,
    details: { type: ['object', 'null'], additionalProperties: true },
  }),
  AuditPage: pageOf('AuditEntry', 'A page of audit entries, newest first.'),
  AnthropicMessage: open(
    "A message (Anthropic's shape), in outline.",
    {
      id: str,
      type: { const: 'message' },
      role: { const: 'assistant' },
      model: str,
      content: { type: 'array', items: open('A content block.', { type: str }, ['type']) },
      stop_reason: strOrNull,
      stop_sequence: strOrNull,
      usage: open('Tokens and cost.', { input_tokens: int, output_tokens: int }, ['input_tokens', 'output_tokens']),
    },
    ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'usage'],
  ),
  Deleted: closed('The key is deleted.', { deleted: { const: true } }),
  ByokKey: closed("An account's own key for a provider (BYOK), as it is shown: never the key, only its last four characters.", {
    provider: str,
    label: strOrNull,
    last_four: str,
    mode: { enum: ['prefer', 'only'] },
    created_at: str,
    updated_at: str,
    last_failure_at: strOrNull,
    last_failure: strOrNull,
  }),
  ByokKeyList: closed("The account's own provider keys (BYOK), by provider.", { data: { type: 'array', items: ref('ByokKey') } }),
  ByokKeyAnswer: dataOf('ByokKey', 'The key as stored.'),
  ByokKeyDeleted: closed('The key is deleted.', { deleted: { const: true }, provider: str }),
  Ready: open(
    'Readiness: each check, the failing ones, the build and the running configuration.',
    {
      status: { enum: ['ready', 'not_ready'] },
      failing: strings,
      checks: { type: 'object', additionalProperties: closed('A check.', { ok: bool, detail: str }) },
      version: str,
      build: str,
    },
    ['status', 'failing', 'checks'],
  ),
  ModelEndpoints: closed("A model's endpoints (OpenRouter's shape) with their live health.", {
    data: open(
      'The model and its endpoints.',
      {
        id: str,
        name: str,
        created: int,
        description: str,
        endpoints: {
          type: 'array',
          items: open(
            'An endpoint.',
            {
              name: str,
              model_id: str,
              tag: str,
              endpoint_id: str,
              provider_name: str,
              context_length: int,
              pricing,
              status: int,
              ...healthFigures,
            },
            ['name', 'model_id', 'tag', 'endpoint_id', 'provider_name', 'context_length', 'pricing'],
          ),
        },
      },
      ['id', 'name', 'endpoints'],
    ),
  }),
  KeyUsage: closed("A key's spend and requests per UTC day.", {
    data: { type: 'array', items: closed('A day.', { day: str, requests: int, cost: num, cost_usd: usdText }) },
    totals: closed('The whole range.', { requests: int, cost: num, cost_usd: usdText }),
    from: str,
    to: str,
  }),
  UsageReport: closed(
    'Usage aggregates per group (account, key, model, provider or day); the account report adds the balance.',
    {
      data: { type: 'array', items: { $ref: 'UsageRow#' } },
      next_cursor: strOrNull,
      totals: ref('UsageRow'),
      group_by: str,
      from: str,
      to: str,
      balance: num,
      balance_usd: usdText,
    },
    ['balance', 'balance_usd'],
  ),
  UsageRow: closed(
    'The aggregates of a group (`group`) or of the range (totals).',
    {
      group: strOrNull,
      requests: int,
      errors: int,
      tokens_prompt: int,
      tokens_completion: int,
      tokens_cache_read: int,
      tokens_cache_write: int,
      tokens_reasoning: int,
      cost: num,
      cost_usd: usdText,
      avg_latency_ms: numOrNull,
    },
    ['group'],
  ),
  RefusalPage: pageOf('Refusal', 'A page of refusal counts.'),
  Refusal: closed('Requests refused, counted per key, minute and reason.', {
    minute: str,
    account_id: str,
    key_hash: str,
    reason: str,
    count: int,
  }),
  ProviderHealth: closed('Provider and endpoint health.', {
    data: closed('The providers.', {
      providers: {
        type: 'array',
        items: closed(
          'A provider.',
          {
            id: str,
            endpoints: {
              type: 'array',
              items: closed('An endpoint and its health.', {
                endpoint_id: str,
                model: str,
                provider_name: str,
                circuit: { enum: ['closed', 'open', 'half-open'] },
                recent_outage: bool,
                ...healthFigures,
              }),
            },
            // A credential pool's state (never a key): docs/configuration.md, "Credential pools".
            credentials: {
              type: 'array',
              items: open('A pooled credential: its label, weight, health and headroom (never the key).', { label: str, health: str }, [
                'label',
                'health',
              ]),
            },
          },
          ['credentials'],
        ),
      },
    }),
  }),
  Response: open(
    "A response (OpenAI's responses shape), in outline.",
    {
      id: str,
      object: { const: 'response' },
      created_at: int,
      status: str,
      model: str,
      output: { type: 'array', items: open('An output item.', { type: str }, ['type']) },
      usage: { type: ['object', 'null'] },
    },
    ['id', 'object', 'created_at', 'status', 'model', 'output'],
  ),
  GeminiModelList: closed(
    "The model list in Google's shape.",
    {
      models: {
        type: 'array',
        items: open(
          'A Gemini model.',
          {
            name: str,
            baseModelId: str,
            displayName: str,
            inputTokenLimit: int,
            outputTokenLimit: int,
            supportedGenerationMethods: strings,
          },
          ['name', 'displayName', 'supportedGenerationMethods'],
        ),
      },
      nextPageToken: str,
    },
    ['nextPageToken'],
  ),
  CreditsChanged: closed("Credits granted or adjusted: the account's new balance and the ledger entry written.", {
    data: closed('The change.', { account_id: str, balance: num, balance_usd: usdText, entry: ref('LedgerEntry') }),
  }),
  DashboardSession: {
    oneOf: [
      closed(
        "Not signed in; `email_sign_in`: members may ask for an emailed link (`smtp:` configured); `sso`: single sign-on (`oidc:` configured), the button's provider name and where it starts, else null.",
        {
          signed_in: { const: false },
          email_sign_in: bool,
          sso: { oneOf: [{ type: 'null' }, closed('Single sign-on: "Sign in with <name>" opens `url`.', { name: str, url: str })] },
        },
      ),
      closed(
        'A dashboard session (`expires_at` in the sign-in answer).',
        {
          signed_in: { const: true },
          kind: { enum: ['admin', 'management', 'member'] },
          key_label: str,
          account: closed('The account of the key.', { id: str, name: str }),
          csrf_token: str,
          expires_at: str,
          role: { enum: ['owner', 'admin', 'member', 'viewer', 'operator'] },
          member: { oneOf: [{ type: 'null' }, closed('The member signed in (or holding the key).', { id: str, email: str, name: str })] },
          byok_enabled: bool,
        },
        ['expires_at'],
      ),
    ],
  },
  Images: open(
    'Images made (OpenAI shape): each as base64 or a gateway URL.',
    {
      created: int,
      data: { type: 'array', items: open('An image.', { b64_json: str, url: str, revised_prompt: str }, []) },
      output_format: str,
      size: str,
      quality: str,
      background: str,
      usage: open('Tokens and cost.', { input_tokens: int, output_tokens: int, total_tokens: int, cost: num }, []),
    },
    ['created', 'data'],
  ),
  InputTokens: closed('The input tokens of a messages request.', { input_tokens: int }),
  Generation: open(
    'A generation record, whole (GET /generation; GET /admin/generations/{id} adds the list fields: account, key, cost as text).',
    {
      id: str,
      account_id: str,
      key_hash: strOrNull,
      model: str,
      provider_name: strOrNull,
      upstream_model: strOrNull,
      upstream_id: strOrNull,
      api_type: strOrNull,
      created_at: str,
      streamed: bool,
      cancelled: bool,
      cache_hit: bool,
      byok: bool,
      status: str,
      error_code: strOrNull,
      finish_reason: strOrNull,
      native_finish_reason: strOrNull,
      tokens_prompt: int,
      tokens_completion: int,
      native_tokens_cached: int,
      native_tokens_cache_write: int,
      native_tokens_reasoning: int,
      total_cost: num,
      total_cost_usd: usdText,
      usage: num,
      cost_breakdown: {
        type: ['object', 'null'],
        description: 'USD per item as decimal text (prompt, completion, cache_read, cache_write, request, image, ...).',
        additionalProperties: str,
      },
      latency: numOrNull,
      generation_time: numOrNull,
      time_to_first_token: numOrNull,
      attempts: {
        type: 'array',
        items: open(
          'A provider attempt: which endpoint, its HTTP status (0: no answer), error code, duration, credential label.',
          {
            model: str,
            provider: str,
            endpoint: str,
            status: int,
            errorCode: strOrNull,
            ms: num,
            credential: str,
          },
          ['model', 'provider', 'endpoint', 'status', 'errorCode', 'ms'],
        ),
      },
      http_referer: strOrNull,
      app_title: strOrNull,
      user: strOrNull,
      guardrails: {
        type: 'array',
        items: closed("One of the account's guardrail rules that fired on the request (never the text it matched).", {
          name: str,
          detector: str,
          action: { enum: ['block', 'redact'] },
        }),
      },
    },
    [
      'id',
      'account_id',
      'key_hash',
      'model',
      'provider_name',
      'upstream_model',
      'upstream_id',
      'api_type',
      'created_at',
      'streamed',
      'cancelled',
      'byok',
      'status',
      'error_code',
      'finish_reason',
      'native_finish_reason',
      'tokens_prompt',
      'tokens_completion',
      'native_tokens_cached',
      'native_tokens_cache_write',
      'native_tokens_reasoning',
      'total_cost',
      'total_cost_usd',
      'cost_breakdown',
      'latency',
      'time_to_first_token',
      'attempts',
      'http_referer',
      'app_title',
      'user',
      'guardrails',
    ],
  ),
  Webhook: closed("An account's webhook (the secret is never shown again after its creation).", {
    id: str,
    url: str,
    events: strings,
    created_at: str,
  }),
  WebhookList: closed("The account's webhooks.", { data: { type: 'array', items: ref('Webhook') } }),
  WebhookCreated: closed('A webhook just registered: its signing secret is in `secret`, this once.', { data: ref('Webhook'), secret: str }),
  WebhookDelivery: closed('A delivery of an event to a webhook, with each attempt.', {
    id: str,
    webhook_id: str,
    event_id: str,
    type: str,
    status: { enum: ['pending', 'delivered', 'failed'] },
    attempts: int,
    last_status: intOrNull,
    last_error: strOrNull,
    next_attempt_at: strOrNull,
    created_at: str,
    delivered_at: strOrNull,
    attempt_log: {
      type: 'array',
      items: closed("One attempt: the receiver's HTTP status (null: no answer), the error, how long it took.", {
        attempt: int,
        at: str,
        status: intOrNull,
        error: strOrNull,
        duration_ms: num,
      }),
    },
  }),
  WebhookDeliveries: closed("A webhook's deliveries, newest first.", { data: { type: 'array', items: ref('WebhookDelivery') } }),
  WebhookDeliveryAnswer: dataOf('WebhookDelivery', 'The new delivery.'),
  SignedOut: closed('The session ended.', { signed_out: { const: true } }),
  PlaygroundKey: closed("The playground's short-lived key: the key itself in `key`, this once.", {
    key: str,
    data: closed('The key.', { hash: str, label: str, name: str, limit: { type: ['string', 'null'] }, expires_at: strOrNull }),
  }),
  Pruned: closed('What a prune deleted, and how long its batches held the database.', {
    data: closed('The outcome.', { deleted: int, accounts: int, steps: int, max_step_ms: num, total_step_ms: num }),
  }),
  GeminiModel: open(
    "A model in Google's shape.",
    { name: str, baseModelId: str, displayName: str, inputTokenLimit: int, outputTokenLimit: int, supportedGenerationMethods: strings },
    ['name', 'displayName', 'supportedGenerationMethods'],
  ),
  GeminiAnswer: {
    description:
      "generateContent's GenerateContentResponse, countTokens' {totalTokens}, embedContent's {embedding}, batchEmbedContents' {embeddings}; streamGenerateContent without alt=sse: a JSON array of GenerateContentResponse.",
    oneOf: [
      open(
        'A GenerateContentResponse.',
        { candidates: { type: 'array', items: { type: 'object' } }, usageMetadata: { type: 'object' }, modelVersion: str, responseId: str },
        ['candidates'],
      ),
      closed('countTokens.', { totalTokens: int, cachedContentTokenCount: int, promptTokensDetails: { type: 'array' } }, [
        'cachedContentTokenCount',
        'promptTokensDetails',
      ]),
      closed('embedContent.', { embedding: closed('A vector.', { values: { type: 'array', items: num } }) }),
      closed('batchEmbedContents.', {
        embeddings: { type: 'array', items: closed('A vector.', { values: { type: 'array', items: num } }) },
      }),
      { type: 'array', items: { type: 'object' } },
    ],
  },
  Transcription: open(
    'A transcription (OpenAI shape): the text, and with verbose_json the language, duration, segments and words.',
    { text: str, usage: { type: 'object' }, language: str, duration: num, segments: { type: 'array' }, words: { type: 'array' } },
    ['text'],
  ),
  OpenApiDocument: open(
    'This OpenAPI 3.1 document.',
    { openapi: str, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
    ['openapi', 'info', 'paths'],
  ),
  AccountMcpServer: closed("An account's own MCP server: its header values are never shown, only their names.", {
    id: str,
    account_id: str,
    name: str,
    url: str,
    header_names: strings,
    tools: { type: ['array', 'null'], items: str },
    created_at: str,
  }),
  AccountMcpServerList: closed("The account's MCP servers.", { data: { type: 'array', items: ref('AccountMcpServer') } }),
  AccountMcpServerAnswer: dataOf('AccountMcpServer', 'One MCP server.'),
  McpCall: closed('An MCP tool call the gateway made (never its arguments or result).', {
    id: str,
    at: str,
    account_id: str,
    key_hash: str,
    server: strOrNull,
    tool: str,
    via: { enum: ['endpoint', 'generation'] },
    status: { enum: ['ok', 'tool_error', 'failed', 'refused'] },
    duration_ms: num,
    error: strOrNull,
    generation_id: strOrNull,
  }),
  McpCallPage: pageOf('McpCall', 'A page of MCP tool calls, newest first.'),
  JsonRpcAnswer: open(
    'A JSON-RPC 2.0 answer (MCP).',
    { jsonrpc: { const: '2.0' }, id: {}, result: { type: 'object' }, error: { type: 'object' } },
    ['jsonrpc'],
  ),
  Sent: closed('Asked: a sign-in link is mailed if the address is a member (the same answer either way).', { sent: { const: true } }),
  ConfigReload: closed(
    'The outcome of a configuration reload.',
    { ok: bool, generation: int, at: str, models: int, warnings: strings, error: str },
    ['models', 'warnings', 'error'],
  ),
  ConfigReloadAnswer: dataOf('ConfigReload', 'The outcome.'),
  RunningConfig: closed('The running configuration, every secret masked.', {
    data: { type: 'object', additionalProperties: true, description: 'Everything as loaded, defaults included (internal names).' },
    file: strOrNull,
    yaml: strOrNull,
    generation: int,
    loaded_at: str,
    last_reload: { oneOf: [{ type: 'null' }, ref('ConfigReload')] },
  }),
  GenerationAnswer: dataOf('Generation', 'One generation record.'),
  Embeddings: closed(
    'Embeddings (OpenAI shape).',
    {
      object: { const: 'list' },
      data: {
        type: 'array',
        items: closed('One vector.', {
          object: { const: 'embedding' },
          index: int,
          embedding: { oneOf: [{ type: 'array', items: num }, str] },
        }),
      },
      model: str,
      usage: open('Tokens and cost.', { prompt_tokens: int, total_tokens: int }, ['prompt_tokens', 'total_tokens']),
      id: str,
      provider: str,
    },
    ['id', 'provider'],
  ),
  ChatCompletion: open(
    'A chat completion (OpenAI shape), in outline: the fields every answer has.',
    {
      id: str,
      object: { const: 'chat.completion' },
      created: int,
      model: str,
      choices: {
        type: 'array',
        items: open(
          'A choice.',
          {
            index: int,
            message: open('The assistant message.', { role: { const: 'assistant' }, content: strOrNull, tool_calls: { type: 'array' } }, [
              'role',
            ]),
            finish_reason: strOrNull,
          },
          ['index', 'message', 'finish_reason'],
        ),
      },
      usage: open('Tokens and cost.', { prompt_tokens: int, completion_tokens: int, total_tokens: int, cost: num }, [
        'prompt_tokens',
        'completion_tokens',
        'total_tokens',
      ]),
    },
    ['id', 'object', 'created', 'model', 'choices'],
  ),
};
