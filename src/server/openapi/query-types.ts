// Query parameters arrive as text, and strict routes validate them as text (no coercion:
// strict-validation.ts; each handler parses and bounds its numbers with its own message).
// The document shows what a client sends: `limit` an integer, `details` a boolean. A
// parameter's documented type is kept beside its validation schema and swapped in when the
// document is built (register-openapi.ts), so validation stays as it was.

export interface TypedQueryParam {
  description: string;
  type: 'integer' | 'boolean';
  minimum?: number;
  maximum?: number;
}

const documented = new WeakMap<object, Record<string, unknown>>();

/** The validation schema of a query parameter (text), remembering its documented type. */
export function queryParamSchema(p: string | TypedQueryParam): Record<string, unknown> {
  if (typeof p === 'string') return { type: 'string', description: p };
  const validated = { type: 'string', description: p.description };
  documented.set(validated, { ...p });
  return validated;
}

/** A querystring schema with each typed parameter shown as its documented type. */
export function documentedQuery(querystring: unknown): unknown {
  const q = querystring as { properties?: Record<string, object> } | undefined;
  if (q?.properties === undefined) return querystring;
  const properties = Object.fromEntries(Object.entries(q.properties).map(([k, v]) => [k, documented.get(v) ?? v]));
  return { ...q, properties };
}
