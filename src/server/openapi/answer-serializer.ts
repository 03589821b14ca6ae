import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

// The answers of the strict routes (the admin and management APIs: strict-validation.ts) are
// serialized by their declared response schema — the named component the route `answers`
// (response-components.ts), the one the OpenAPI document shows — with fast-json-stringify,
// Fastify's own serializer. What a schema does not describe is never written: a field added
// to a store row, a view or a stored JSON object reaches a client only once the schema names
// it. The model-calling routes, and every error (the `default` answer: errors/), keep
// JSON.stringify (their writers are their dialects').
//
// The components are JSON Schema as the document states it; for serializing they are read
// with four adjustments, none of which changes what a conforming answer looks like:
// - `additionalProperties: false` is dropped: fast-json-stringify already leaves out what
//   `properties` does not list, while its choice among `oneOf` branches (Ajv, validating)
//   would refuse the whole answer for an extra field instead of leaving it out;
// - an object with no `properties` (free-form: an audit entry's details) keeps all it holds;
// - `required` is dropped: a missing field is left out (as JSON.stringify did), not a 500
//   (test/e2e/openapi.test.ts checks answers against the schemas as documented);
// - every `type` also takes null: a null (an old row's missing model) is written as null,
//   never coerced to "", 0 or false (and so `oneOf` is read as `anyOf`: the first branch
//   that fits is written, as two may now both fit a null).

type Schema = Record<string, unknown>;
type Serialize = (data: unknown) => string;

const stringify: Serialize = (data) => JSON.stringify(data);

/** The compiler of the strict routes' answers; `components` by name (`$id`). Each component is compiled once, when first answered. */
export function answerSerializerCompiler(components: Record<string, Schema>): FastifySerializerCompiler<unknown> {
  const externals: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(components)) externals[name] = { ...(forSerializing(schema) as Schema), $id: name };
  const compiled = new Map<string, Serialize>();
  const compile = (schema: Schema): Serialize => {
    const key = JSON.stringify(schema);
    let out = compiled.get(key);
    if (out === undefined) {
      out = fastJson(forSerializing(schema) as fastJson.Schema, { schema: externals as unknown as Record<string, fastJson.Schema> });
      compiled.set(key, out);
    }
    return out;
  };
  return ({ schema, httpStatus }) => {
    const declared = schema as Schema;
    if (httpStatus === 'default' || !describesJson(declared)) return stringify;
    let serialize: Serialize | undefined;
    return (data) => (serialize ??= compile(declared))(data);
  };
}

/** A JSON object answer (a `$ref` to a component, or an object schema), not an error or another media type. */
function describesJson(schema: Schema | undefined): schema is Schema {
  if (schema === undefined || schema === null || 'content' in schema) return false;
  return typeof schema.$ref === 'string' || schema.type === 'object';
}

/** The schema as the serializer reads it (see above); `description`s and the rest stay. */
export function forSerializing(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerializing);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) {
    if (k === 'required') continue;
    if (k === 'additionalProperties' && v === false) continue;
    // `oneOf` is read as `anyOf`: with nulls taken everywhere, two branches may both fit a null.
    if (k === 'oneOf') {
      out.anyOf = forSerializing(v);
      continue;
    }
    out[k] =
      k === 'properties' || k === '$defs' || k === 'definitions'
        ? Object.fromEntries(Object.entries(v as Schema).map(([name, sub]) => [name, forSerializing(sub)]))
        : k === 'enum' || k === 'const' || k === 'examples'
          ? v
          : forSerializing(v);
  }
  const types = ([] as unknown[]).concat(out.type ?? []);
  // A null is written as null, never coerced to "", 0 or false (as JSON.stringify did).
  if (types.length > 0 && !types.includes('null')) out.type = [...types, 'null'];
  if (
    types.includes('object') &&
    out.properties === undefined &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined
  )
    out.additionalProperties = true;
  return out;
}
