import type { FastifySchema } from 'fastify';

// Route schemas for the OpenAPI document (docs only: build-app's validator compiler accepts
// every value, so handlers keep validating themselves and errors keep their shapes).

const str = { type: 'string' };

export interface RouteDoc {
  summary: string;
  tags: string[];
  /** Query parameters: name → description (all strings on the wire). */
  query?: Record<string, string>;
  /** Path parameters: name → description. */
  params?: Record<string, string>;
  /** A JSON schema of the body (documentation). */
  body?: Record<string, unknown>;
  /** What a 2xx answer holds. */
  response: string;
  status?: number;
}

export function routeSchema(d: RouteDoc): FastifySchema {
  const schema: Record<string, unknown> = {
    summary: d.summary,
    tags: d.tags,
    security: [{ bearerAuth: [] }],
    response: {
      [d.status ?? 200]: { description: d.response, type: 'object', additionalProperties: true },
      default: { description: 'An error: {"error": {"message", "type", "code"}} (docs/errors.md).', type: 'object', additionalProperties: true },
    },
  };
  if (d.query !== undefined) schema.querystring = properties(d.query, []);
  if (d.params !== undefined) schema.params = properties(d.params, Object.keys(d.params));
  if (d.body !== undefined) schema.body = d.body;
  return schema as FastifySchema;
}

function properties(fields: Record<string, string>, required: string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([k, description]) => [k, { ...str, description }])),
    required,
  };
}

export const PAGE_QUERY = {
  limit: 'Page size, 1..200 (default 50).',
  cursor: 'The `next_cursor` of the previous page.',
};

export const RANGE_QUERY = {
  from: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).',
  to: 'Last UTC day, YYYY-MM-DD, inclusive (default: today).',
};
