import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { closestMatch } from '../../config/did-you-mean.ts';
import { GatewayError } from '../../errors/gateway-error.ts';

// Strict routes (the admin API, the key-management API, the account settings, the sign-in):
// their schema is the one source that both documents the route (the OpenAPI document) and
// validates its input, with Fastify's own Ajv. Objects list their fields with
// `additionalProperties: false`, so an unknown field is a 400 naming it and the nearest
// known one, as the config loader does. Every other route (the model calls above all)
// keeps an accept-everything validator: their dialect decoders validate and render errors
// in their own shapes.

/**
 * Fastify's Ajv, as strict routes need it: no type coercion (a repeated query parameter
 * or a number where text is due is refused, not converted), no removal of unknown fields
 * (refused instead), no defaults filled in, the first error only (allErrors is a known
 * denial-of-service risk), and each error with its schema (`verbose`) so the refusal can
 * name the fields the object takes.
 */
export const STRICT_AJV_OPTIONS = {
  customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true, strictTypes: false },
} as const;

const strictSchemas = new WeakSet<object>();

/** Marks a route schema as strict (routeSchema does, for every route it builds unless told otherwise). */
export function markStrict<T extends FastifySchema>(schema: T): T {
  strictSchemas.add(schema);
  return schema;
}

export function isStrict(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && strictSchemas.has(schema);
}

/** The validator of every route that is not strict: its schema is documentation only. */
export const acceptEverything: FastifySchemaCompiler<unknown> = () => acceptAll;

function acceptAll(): boolean {
  return true;
}

/** The part of an Ajv error a refusal is made of (Ajv's ErrorObject with `verbose`). */
interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: { properties?: Record<string, unknown>; type?: unknown };
  /** The value that failed (the object, for `required`). */
  data?: unknown;
}

function unknownField(data: unknown, known: readonly string[]): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  return Object.keys(data).find((k) => !known.includes(k));
}

/** Client-chosen names in messages are cut short (a field name may be megabytes long). */
function shown(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}...` : name;
}

/**
 * A strict route's schema refusal as the gateway's error: the first failing value, named
 * by its path (`limits.requests_per_minute`), with what was expected. Fastify calls it
 * (the route's `schemaErrorFormatter`) with the part that failed: body or querystring.
 */
export function schemaError(errors: readonly SchemaError[], part: string): GatewayError {
  const e = errors[0];
  const query = part === 'querystring';
  if (e === undefined) return new GatewayError('invalid_parameter', 'The request does not match the schema of this route.');
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const at = (field?: string): string => shown([...path, ...(field === undefined ? [] : [field])].join('.'));
  const known = Object.keys(e.parentSchema?.properties ?? {});
  const takes = known.length === 0 ? 'no fields' : known.map((k) => `"${k}"`).join(', ');
  const what = query ? 'query parameter' : 'field';
  // Ajv checks `required` before the fields: a typo (`{"nmae": ...}`) is named as the
  // unknown field it is, rather than as the field it misses.
  const unknown = e.keyword === 'required' ? unknownField(e.data, known) : undefined;
  switch (unknown === undefined ? e.keyword : 'additionalProperties') {
    case 'additionalProperties': {
      const field = unknown ?? String(e.params.additionalProperty);
      const near = closestMatch(field, known);
      const where = path.length === 0 ? (query ? 'this route takes' : 'this call takes') : `"${at()}" takes`;
      return new GatewayError(
        'invalid_parameter',
        `Unknown ${what} "${at(field)}".${near === undefined ? '' : ` Did you mean "${near}"?`} (${where} ${takes}.)`,
        { param: at(field) },
      );
    }
    case 'required': {
      const field = String(e.params.missingProperty);
      return new GatewayError('missing_parameter', `Missing required ${query ? 'query parameter' : 'parameter'}: "${at(field)}".`, {
        param: at(field),
      });
    }
    case 'minProperties':
      return new GatewayError(
        'missing_parameter',
        `Nothing to change: give at least one of ${takes}${path.length === 0 ? '' : ` in "${at()}"`}.`,
        { param: known[0] ?? at() },
      );
    case 'type':
      if (path.length === 0 && !query) return new GatewayError('invalid_json', 'The request body must be a JSON object.');
      return new GatewayError('invalid_parameter', `"${at()}" must be ${typeName(e.params.type)}.`, { param: at() });
    case 'enum':
      return new GatewayError(
        'invalid_parameter',
        `"${at()}" must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
        { param: at() },
      );
    case 'maxLength':
      return new GatewayError('invalid_parameter', `"${at()}" must be at most ${String(e.params.limit)} characters.`, { param: at() });
    case 'minLength':
      return new GatewayError('invalid_parameter', `"${at()}" must not be empty.`, { param: at() });
    case 'minimum':
    case 'maximum':
      return new GatewayError(
        'invalid_parameter',
        `"${at()}" must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(e.params.limit)}.`,
        { param: at() },
      );
    default:
      return new GatewayError('invalid_parameter', `"${at()}" ${e.message ?? 'is not valid'}.`, { param: at() });
  }
}

function typeName(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    integer: 'an integer',
    boolean: 'a boolean (true or false)',
    object: 'an object',
    array: 'an array',
    null: 'null',
  };
  const list = String(type)
    .split(',')
    .map((t) => names[t] ?? t);
  return list.length === 1 ? list[0]! : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}
