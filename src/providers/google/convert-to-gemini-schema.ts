import type { GeminiSchema } from './gemini-wire-types.ts';

// JSON Schema → the OpenAPI subset Gemini takes as `responseSchema` and as function
// `parameters`. Kept: types (a `null` member becomes `nullable`), properties, required,
// items, enums of strings (and `const` as a one-value enum), anyOf/oneOf, descriptions,
// titles, numeric and length bounds, patterns, and the formats Gemini knows. Local `$ref`s
// (`#/$defs/...`, `#/definitions/...`) are inlined. Dropped, because Gemini refuses them:
// `additionalProperties`, `$schema`, `default`, `examples`, other formats.

type Json = Record<string, unknown>;

const TYPES: Readonly<Record<string, GeminiSchema['type']>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

const FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  STRING: new Set(['date-time', 'enum']),
  NUMBER: new Set(['float', 'double']),
  INTEGER: new Set(['int32', 'int64']),
};

/** Deep enough for real schemas; a recursive `$ref` stops here instead of looping. */
const MAX_REF_DEPTH = 8;
/**
 * Schema nodes one conversion may produce before `$ref`s stop being inlined (they become
 * `{}`, any value). Several references to a recursive definition multiply at every level
 * (10 of them, 8 levels deep: 10^8 nodes): without a budget one small request would hold
 * the event loop for minutes. Far above any real schema.
 */
const MAX_CONVERTED_NODES = 20_000;
/** Nodes left in the running conversion (conversions are synchronous: one at a time). */
let nodesLeft = 0;

export function convertToGeminiSchema(schema: Json): GeminiSchema {
  nodesLeft = MAX_CONVERTED_NODES;
  return convert(schema, schema, 0);
}

/** True when an object schema declares no properties: Gemini refuses such `parameters`. */
export function isEmptyObjectSchema(schema: Json): boolean {
  const props = schema.properties;
  return (
    (schema.type === undefined || schema.type === 'object') &&
    (typeof props !== 'object' || props === null || Object.keys(props).length === 0)
  );
}

function convert(node: Json, root: Json, refDepth: number): GeminiSchema {
  nodesLeft--;
  if (typeof node.$ref === 'string') {
    const target = refDepth < MAX_REF_DEPTH && nodesLeft > 0 ? resolveRef(root, node.$ref) : undefined;
    return target === undefined ? {} : convert({ ...target, ...withoutRef(node) }, root, refDepth + 1);
  }
  const out: GeminiSchema = {};
  const variants = node.anyOf ?? node.oneOf;
  if (Array.isArray(variants)) {
    const kept: GeminiSchema[] = [];
    for (const v of variants) {
      if (!isObject(v)) continue;
      if (v.type === 'null') out.nullable = true;
      else kept.push(convert(v, root, refDepth));
    }
    if (kept.length === 1) Object.assign(out, kept[0]);
    else if (kept.length > 1) out.anyOf = kept;
  }
  setType(out, node.type, root, refDepth);
  if (typeof node.description === 'string') out.description = node.description;
  if (typeof node.title === 'string') out.title = node.title;
  if (node.nullable === true) out.nullable = true;
  if (typeof node.format === 'string' && out.type !== undefined && FORMATS[out.type]?.has(node.format)) out.format = node.format;
  const values = node.const !== undefined ? [node.const] : node.enum;
  if (Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string')) {
    out.enum = values;
    out.type ??= 'STRING';
  }
  if (isObject(node.properties)) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [name, prop] of Object.entries(node.properties)) if (isObject(prop)) properties[name] = convert(prop, root, refDepth);
    out.properties = properties;
    out.type ??= 'OBJECT';
  }
  if (Array.isArray(node.required) && node.required.length > 0)
    out.required = node.required.filter((r): r is string => typeof r === 'string');
  if (isObject(node.items)) {
    out.items = convert(node.items, root, refDepth);
    out.type ??= 'ARRAY';
  }
  if (typeof node.minItems === 'number') out.minItems = String(node.minItems);
  if (typeof node.maxItems === 'number') out.maxItems = String(node.maxItems);
  if (typeof node.minLength === 'number') out.minLength = String(node.minLength);
  if (typeof node.maxLength === 'number') out.maxLength = String(node.maxLength);
  if (typeof node.minimum === 'number') out.minimum = node.minimum;
  if (typeof node.maximum === 'number') out.maximum = node.maximum;
  if (typeof node.pattern === 'string') out.pattern = node.pattern;
  return out;
}

/** `type` may be a list; `null` in it means nullable, and several others become anyOf. */
function setType(out: GeminiSchema, type: unknown, root: Json, refDepth: number): void {
  if (typeof type === 'string') {
    if (type === 'null') out.nullable = true;
    else if (TYPES[type] !== undefined) out.type = TYPES[type];
    return;
  }
  if (!Array.isArray(type)) return;
  const others = type.filter((t): t is string => typeof t === 'string' && t !== 'null');
  if (others.length < type.length) out.nullable = true;
  if (others.length === 1) setType(out, others[0], root, refDepth);
  else if (others.length > 1) out.anyOf = others.map((t) => ({ type: TYPES[t] }));
}

function resolveRef(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const key of ref.slice(2).split('/')) {
    if (!isObject(node)) return undefined;
    node = node[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return isObject(node) ? node : undefined;
}

function withoutRef(node: Json): Json {
  const { $ref: _ref, ...rest } = node;
  return rest;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
