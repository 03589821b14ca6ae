// Builds a deterministic JSON value that validates against a JSON Schema: the sim's tool
// arguments and structured outputs. It covers what tool and response schemas use in
// practice: type (or a type inferred from the keywords), properties (all of them are
// filled, so `required` always holds), enum, const, default, examples, arrays with
// prefixItems / items / minItems / maxItems / uniqueItems, string formats and lengths,
// number ranges and multipleOf, allOf (merged), anyOf / oneOf (the first branch), and
// $ref into the same document ($defs, definitions, any JSON pointer).
// Not honoured: `pattern` (no regex inversion), `not`, if/then/else, remote $refs.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

type Schema = Record<string, unknown>;

/**
 * Past this nesting, objects get only their required properties and arrays only their
 * minItems, so that recursive schemas ($ref cycles) end in a valid leaf; past MAX_DEPTH
 * generation gives up with null.
 */
const SHALLOW_DEPTH = 12;
const MAX_DEPTH = 32;
/**
 * Schema nodes one value may expand into; past it every node is null. Several required
 * references to a recursive definition multiply at every level (10 of them, 32 levels
 * deep, is 10^32 nodes): without a budget one small request would hold the event loop.
 */
const MAX_GENERATED_NODES = 20_000;
/** Nodes left in the running generation (generation is synchronous: one at a time). */
let nodesLeft = 0;

export function generateValueForSchema(schema: unknown, root: unknown = schema): JsonValue {
  nodesLeft = MAX_GENERATED_NODES;
  return generate(schema, root, '', 0, 0) ?? null;
}

/** `variant` is the item's index in an array, so that `uniqueItems` arrays get distinct items. */
function generate(schema: unknown, root: unknown, hint: string, variant: number, depth: number): JsonValue | undefined {
  if (schema === false) return undefined;
  if (!isSchema(schema)) return sampleString(hint, variant);
  if (depth > MAX_DEPTH || --nodesLeft < 0) return null;
  if (typeof schema.$ref === 'string') {
    const { $ref, ...siblings } = schema;
    const target = resolveRef(root, $ref);
    return generate(isSchema(target) ? mergeSchemas(target, siblings) : siblings, root, hint, variant, depth + 1);
  }
  if ('const' in schema) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[variant % schema.enum.length] as JsonValue;
  if (schema.default !== undefined && variant === 0) return schema.default as JsonValue;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[variant % schema.examples.length] as JsonValue;
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    let merged: Schema = rest;
    for (const branch of allOf) if (isSchema(branch)) merged = mergeSchemas(merged, branch);
    return generate(merged, root, hint, variant, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const { [key]: _omitted, ...rest } = schema;
    const first: unknown = branches[0];
    return generate(isSchema(first) ? mergeSchemas(rest, first) : rest, root, hint, variant, depth + 1);
  }
  switch (pickType(schema)) {
    case 'object':
      return generateObject(schema, root, depth);
    case 'array':
      return generateArray(schema, root, hint, depth);
    case 'string':
      return generateString(schema, hint, variant);
    case 'integer':
      return generateNumber(schema, true, variant);
    case 'number':
      return generateNumber(schema, false, variant);
    case 'boolean':
      return variant % 2 === 0;
    case 'null':
      return null;
    default:
      return sampleString(hint, variant);
  }
}

function generateObject(schema: Schema, root: unknown, depth: number): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const key of Object.keys(properties)) {
    if (depth > SHALLOW_DEPTH && !required.includes(key)) continue;
    const value = generate(properties[key], root, key, 0, depth + 1);
    if (value !== undefined) out[key] = value;
  }
  const extra = schema.additionalProperties === undefined ? {} : schema.additionalProperties;
  for (const key of required) {
    if (typeof key !== 'string' || key in out) continue;
    const value = generate(key in properties ? properties[key] : extra, root, key, 0, depth + 1);
    if (value !== undefined) out[key] = value;
  }
  const minProperties = nonNegative(schema.minProperties) ?? 0;
  for (let i = 1; Object.keys(out).length < minProperties && extra !== false; i++) {
    const value = generate(extra, root, `key_${i}`, 0, depth + 1);
    if (value === undefined) break;
    out[`key_${i}`] = value;
  }
  return out;
}

function generateArray(schema: Schema, root: unknown, hint: string, depth: number): JsonValue {
  // Draft 2020-12 tuples use prefixItems; older drafts put the tuple in `items`.
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  const min = nonNegative(schema.minItems) ?? 0;
  const max = nonNegative(schema.maxItems) ?? Infinity;
  const count = Math.min(depth > SHALLOW_DEPTH ? min : Math.max(min, tuple.length, 1), max);
  const itemHint = singular(hint);
  const out: JsonValue[] = [];
  for (let i = 0; i < count; i++) {
    const value = generate(i < tuple.length ? tuple[i] : rest === undefined ? {} : rest, root, itemHint, i, depth + 1);
    if (value === undefined) break;
    out.push(value);
  }
  return out;
}

const FORMATS: Record<string, (variant: number) => string> = {
  date: (v) => `2025-01-${pad2(15 + (v % 14))}`,
  'date-time': (v) => `2025-01-${pad2(15 + (v % 14))}T09:30:00Z`,
  time: (v) => `09:${pad2(30 + (v % 30))}:00Z`,
  duration: (v) => `P${v + 1}D`,
  email: (v) => `sim${v === 0 ? '' : v + 1}@example.com`,
  'idn-email': (v) => `sim${v === 0 ? '' : v + 1}@example.com`,
  uri: (v) => `https://example.com/sim${v === 0 ? '' : `/${v + 1}`}`,
  url: (v) => `https://example.com/sim${v === 0 ? '' : `/${v + 1}`}`,
  iri: (v) => `https://example.com/sim${v === 0 ? '' : `/${v + 1}`}`,
  'uri-reference': (v) => `/sim${v === 0 ? '' : `/${v + 1}`}`,
  hostname: (v) => `${v === 0 ? '' : `host${v + 1}.`}example.com`,
  ipv4: (v) => `192.0.2.${(v % 254) + 1}`,
  ipv6: (v) => `2001:db8::${(v % 65534) + 1}`,
  uuid: (v) => `00000000-0000-4000-8000-${String(v).padStart(12, '0')}`,
};

function generateString(schema: Schema, hint: string, variant: number): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format !== undefined) return format(variant);
  let text = sampleString(hint, variant);
  const min = nonNegative(schema.minLength) ?? 0;
  const max = nonNegative(schema.maxLength) ?? Infinity;
  while (text.length < min) text += ' sample';
  if (text.length > max) text = text.slice(0, max).trimEnd();
  return text.length < min ? text.padEnd(min, 'x') : text;
}

function sampleString(hint: string, variant: number): string {
  const base = hint === '' ? 'sample text' : `sample ${humanize(hint)}`;
  return variant === 0 ? base : `${base} ${variant + 1}`;
}

function generateNumber(schema: Schema, integer: boolean, variant: number): number {
  let lo = finite(schema.minimum);
  let hi = finite(schema.maximum);
  let loExclusive = schema.exclusiveMinimum === true && lo !== undefined;
  let hiExclusive = schema.exclusiveMaximum === true && hi !== undefined;
  const exMin = finite(schema.exclusiveMinimum);
  const exMax = finite(schema.exclusiveMaximum);
  if (exMin !== undefined && (lo === undefined || exMin >= lo)) [lo, loExclusive] = [exMin, true];
  if (exMax !== undefined && (hi === undefined || exMax <= hi)) [hi, hiExclusive] = [exMax, true];
  const multipleOf = finite(schema.multipleOf);
  let step = multipleOf !== undefined && multipleOf > 0 ? multipleOf : undefined;
  if (integer && (step === undefined || !Number.isInteger(step))) step = 1;
  const fits = (v: number): boolean =>
    (lo === undefined || (loExclusive ? v > lo : v >= lo)) &&
    (hi === undefined || (hiExclusive ? v < hi : v <= hi)) &&
    (step === undefined || Math.abs(v / step - Math.round(v / step)) < 1e-9);

  const preferred = 1 + variant;
  if (fits(preferred)) return preferred;
  let value: number;
  if (step !== undefined) {
    value = lo !== undefined ? Math.ceil(lo / step) * step : Math.floor(hi! / step) * step;
    if (lo !== undefined && loExclusive && value <= lo) value += step;
    if (lo === undefined && hiExclusive && value >= hi!) value -= step;
    value = Number(value.toPrecision(12));
  } else if (lo !== undefined && hi !== undefined) value = loExclusive || hiExclusive ? (lo + hi) / 2 : lo;
  else if (lo !== undefined) value = loExclusive ? lo + 1 : lo;
  else value = hiExclusive ? hi! - 1 : hi!;
  const shifted = Number((value + variant * (step ?? 1)).toPrecision(12));
  return variant > 0 && fits(shifted) ? shifted : value;
}

function pickType(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') ?? type[0]) as string | undefined;
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema || 'minProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema || 'maxItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema || 'multipleOf' in schema)
    return 'number';
  return undefined;
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Both schemas must hold: later keywords win, except properties and required, which combine. */
function mergeSchemas(a: Schema, b: Schema): Schema {
  const merged: Schema = { ...a, ...b };
  if (isSchema(a.properties) && isSchema(b.properties)) merged.properties = { ...a.properties, ...b.properties };
  if (Array.isArray(a.required) && Array.isArray(b.required))
    merged.required = [...new Set([...(a.required as unknown[]), ...(b.required as unknown[])])];
  return merged;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 0 ? Math.floor(value) : undefined;
}

function humanize(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
}

function singular(name: string): string {
  return name.length > 3 && name.endsWith('s') && !name.endsWith('ss') ? name.slice(0, -1) : name;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
