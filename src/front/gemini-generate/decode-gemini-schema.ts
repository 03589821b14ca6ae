import { isObject, type JsonObject } from '../shared/read-fields.ts';

// Gemini's schema (the OpenAPI subset of `parameters` and `responseSchema`: upper-case
// types, `nullable`, counts as strings) → JSON Schema, which the canonical request carries
// and every provider adapter takes:
// - `type: 'STRING'` → `'string'` (either case is accepted); `nullable: true` adds `'null'`;
// - `minItems`, `maxItems`, `minLength`, `maxLength`, `minProperties`, `maxProperties`
//   written as strings (int64 in JSON) become numbers;
// - `propertyOrdering` (Gemini's own) is dropped;
// - `properties`, `items`, `anyOf` are converted in turn; every other keyword is kept.
// The body's nesting is already bounded (server/body/), so the recursion is too.

const COUNTS: ReadonlySet<string> = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

export function decodeGeminiSchema(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key in node) {
    const value = node[key];
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type') out.type = typeof value === 'string' ? value.toLowerCase() : value;
    else if (COUNTS.has(key) && typeof value === 'string' && /^\d{1,15}$/.test(value)) out[key] = Number(value);
    else if (key === 'properties' && isObject(value)) {
      const properties: JsonObject = {};
      for (const name in value) {
        const prop = value[name];
        properties[name] = isObject(prop) ? decodeGeminiSchema(prop) : prop;
      }
      out.properties = properties;
    } else if (key === 'items' && isObject(value)) out.items = decodeGeminiSchema(value);
    else if (key === 'anyOf' && Array.isArray(value))
      out.anyOf = (value as unknown[]).map((v) => (isObject(v) ? decodeGeminiSchema(v) : v));
    else out[key] = value;
  }
  if (node.nullable === true) {
    const type = out.type;
    if (typeof type === 'string') out.type = type === 'null' ? type : [type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  }
  return out;
}
