import type { FastifySchema } from 'fastify';
import { MAX_DATE_CHARS, MAX_NAME_CHARS } from '../../../billing/account-input.ts';
import {
  MAX_ALLOWLIST_ENTRIES,
  MAX_IN_FLIGHT,
  MAX_PATTERN_CHARS,
  MCP_SERVER_PATTERN,
  MODEL_PATTERN,
  PROVIDER_PATTERN,
} from '../../../billing/allowlist-input.ts';
import { GUARDRAIL_NAME_PATTERN, MAX_GUARDRAIL_PATTERN_CHARS, MAX_GUARDRAILS } from '../../../billing/guardrail-input.ts';
import { GUARDRAIL_DETECTORS } from '../../../catalog/guardrail-rule.ts';
import { markStrict } from '../../openapi/strict-validation.ts';
import { queryParamSchema, type TypedQueryParam } from '../../openapi/query-types.ts';

// Route schemas: the one description of a route's input, for the OpenAPI document and for
// validation alike. A route built here is strict (openapi/strict-validation.ts): its query
// takes the parameters listed and no other, its body the fields listed and no other, each
// of the type given; a refusal is a 400 naming the field. `docsOnly` routes (the model
// calls, whose dialect decoders validate and render their own errors) only document.

export interface RouteDoc {
  summary: string;
  tags: string[];
  /** Query parameters: name → description (text), or a typed one (validated as text, documented as its type: query-types.ts). */
  query?: Record<string, string | TypedQueryParam>;
  /** Path parameters: name → description. */
  params?: Record<string, string>;
  /** The body: an object schema (strict routes: built with `bodySchema`, so it lists every field it takes). */
  body?: Record<string, unknown>;
  /** What a 2xx answer holds. */
  response: string;
  /** The answer's named schema (openapi/response-components.ts), when it has one. */
  answers?: string;
  /**
   * An answer that is not (only) JSON: media type → its schema (a `$ref` to a component, or
   * e.g. `{type: 'string', format: 'binary'}` for audio, images, CSV, a stream).
   */
  produces?: Record<string, Record<string, unknown>>;
  /** The errors' named schema: `Error` (the OpenAI shape) unless the dialect has its own. */
  errors?: 'Error' | 'AnthropicError' | 'GoogleError';
  status?: number;
  /** Other statuses that answer a named schema, not an error (GET /ready's 503 answers `Ready`). */
  alsoAnswers?: Record<number, { description: string; answers: string }>;
  /** Documentation only: nothing is validated against this schema. */
  docsOnly?: boolean;
}

export function routeSchema(d: RouteDoc): FastifySchema {
  const strict = d.docsOnly !== true;
  const schema: Record<string, unknown> = {
    summary: d.summary,
    tags: d.tags,
    response: {
      [d.status ?? 200]:
        d.produces !== undefined
          ? { description: d.response, content: Object.fromEntries(Object.entries(d.produces).map(([type, schema]) => [type, { schema }])) }
          : d.answers === undefined
            ? { description: d.response, type: 'object', additionalProperties: true }
            : { description: d.response, $ref: `${d.answers}#` },
      ...Object.fromEntries(
        Object.entries(d.alsoAnswers ?? {}).map(([status, a]) => [status, { description: a.description, $ref: `${a.answers}#` }]),
      ),
      default: { description: 'An error (docs/errors.md).', $ref: `${d.errors ?? 'Error'}#` },
    },
  };
  // A strict route that lists no query parameters takes none.
  if (d.query !== undefined || strict) schema.querystring = properties(d.query ?? {}, [], strict);
  if (d.params !== undefined) schema.params = properties(d.params, Object.keys(d.params), false);
  if (d.body !== undefined) {
    if (strict && d.body.additionalProperties !== false)
      throw new Error(`${d.summary}: a strict body schema lists its fields (bodySchema)`);
    schema.body = d.body;
  }
  return strict ? markStrict(schema as FastifySchema) : schema;
}

function properties(fields: Record<string, string | TypedQueryParam>, required: string[], closed: boolean): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([k, p]) => [k, queryParamSchema(p)])),
    required,
    ...(closed ? { additionalProperties: false } : {}),
  };
}

/**
 * A JSON object body taking exactly these fields. `atLeastOne`: a change (PATCH) must name
 * at least one of them — an empty one would change nothing (and audit nothing).
 */
export function bodySchema(
  fields: Record<string, Record<string, unknown>>,
  opts: { required?: string[]; atLeastOne?: boolean } = {},
): Record<string, unknown> {
  return {
    type: 'object',
    properties: fields,
    ...(opts.required === undefined ? {} : { required: opts.required }),
    additionalProperties: false,
    ...(opts.atLeastOne === true ? { minProperties: 1 } : {}),
  };
}

/** Field types the bodies share. */
export const FIELD = {
  /** A name of an account or a key (account-input.ts MAX_NAME_CHARS). */
  name: { type: 'string', minLength: 1, maxLength: MAX_NAME_CHARS },
  /** USD decimal text (a JSON number is taken too, as its shortest decimal text), at most 9 decimals. */
  usd: (description: string) => ({ type: ['string', 'number'], maxLength: 64, description }),
  usdOrNull: (description: string) => ({ type: ['string', 'number', 'null'], maxLength: 64, description }),
  limitReset: {
    enum: ['daily', 'weekly', 'monthly', null],
    description: 'The limit caps the usage of each UTC day, week (from Monday) or month; null: the whole usage.',
  },
  expiresAt: { type: ['string', 'null'], maxLength: MAX_DATE_CHARS, description: 'ISO 8601 date-time, in the future; null: never.' },
} as const;

const PRICE = { type: ['string', 'number'], maxLength: 40, description: 'USD per million tokens (decimal text, or a JSON number).' };

/** The allowlist fields (docs/governance.md#allowlists): accounts and keys take the first three, keys also `max_in_flight`. */
export const ALLOWLIST_FIELDS = {
  allowed_models: {
    type: ['array', 'null'],
    maxItems: MAX_ALLOWLIST_ENTRIES,
    items: { type: 'string', minLength: 1, maxLength: MAX_PATTERN_CHARS, pattern: MODEL_PATTERN },
    description: "Model ids and globs (`anthropic/*`) this may use; null: no list. Intersected with the other levels' lists.",
  },
  allowed_providers: {
    type: ['array', 'null'],
    maxItems: MAX_ALLOWLIST_ENTRIES,
    items: { type: 'string', minLength: 1, maxLength: MAX_PATTERN_CHARS, pattern: PROVIDER_PATTERN },
    description: 'Provider ids whose endpoints this may use; null: no list.',
  },
  max_price: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: { prompt: PRICE, completion: PRICE },
    description:
      'The highest prompt and completion prices of an endpoint this may use, USD per million tokens (as `provider.max_price`); null: none.',
  },
  allowed_mcp_servers: {
    type: ['array', 'null'],
    maxItems: MAX_ALLOWLIST_ENTRIES,
    items: { type: 'string', minLength: 1, maxLength: MAX_PATTERN_CHARS, pattern: MCP_SERVER_PATTERN },
    description:
      "MCP servers whose tools the gateway may run for this (`server`, or `server/tool` for one tool); null: no list. Intersected with the other levels' lists.",
  },
} as const;

/** An account's guardrails (docs/governance.md#guardrails). */
export const GUARDRAILS_FIELD = {
  type: ['array', 'null'],
  maxItems: MAX_GUARDRAILS,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['detector', 'action'],
    properties: {
      detector: { enum: [...GUARDRAIL_DETECTORS] },
      action: { enum: ['block', 'redact'] },
      pattern: { type: 'string', minLength: 1, maxLength: MAX_GUARDRAIL_PATTERN_CHARS, description: 'RE2, for detector "pattern".' },
      name: {
        type: 'string',
        pattern: GUARDRAIL_NAME_PATTERN,
        description: 'Names the rule in reasons and metrics, and its placeholder; required for a pattern.',
      },
    },
  },
  description: 'Rules applied to every text the model will read: block (403) or redact (a typed placeholder such as [EMAIL]); null: none.',
} as const;

export const MAX_IN_FLIGHT_FIELD = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: MAX_IN_FLIGHT,
  description: 'Requests of the key in flight at once (the next is refused 429 with Retry-After, across a fleet); null: no cap.',
} as const;

export const PAGE_QUERY = {
  limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Page size, 1..200 (default 50).' } as TypedQueryParam,
  cursor: 'The `next_cursor` of the previous page.',
};

export const RANGE_QUERY = {
  from: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).',
  to: 'Last UTC day, YYYY-MM-DD, inclusive (default: today).',
};
