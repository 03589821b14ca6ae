// A small JSON Schema checker for the sim's tests: enough of the keywords tool and response
// schemas use to prove generated values fit, without adding a validator dependency.
// Returns the list of problems found; empty means valid.

type Schema = Record<string, unknown>;

export function validateAgainstSchema(value: unknown, schema: unknown, root: unknown = schema, path = '$'): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${path}: no value is allowed`];
  if (!isObject(schema)) return [];
  const problems: string[] = [];
  const s = schema;
  if (typeof s.$ref === 'string') problems.push(...validateAgainstSchema(value, resolve(root, s.$ref), root, path));
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) problems.push(`${path}: not the const`);
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) problems.push(`${path}: not in enum`);
  if (Array.isArray(s.allOf)) for (const b of s.allOf) problems.push(...validateAgainstSchema(value, b, root, path));
  if (Array.isArray(s.anyOf) && !s.anyOf.some((b) => validateAgainstSchema(value, b, root, path).length === 0))
    problems.push(`${path}: matches no anyOf branch`);
  if (Array.isArray(s.oneOf) && s.oneOf.filter((b) => validateAgainstSchema(value, b, root, path).length === 0).length !== 1)
    problems.push(`${path}: does not match exactly one oneOf branch`);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => hasType(value, t as string)))
      problems.push(`${path}: expected ${types.join('|')}, got ${JSON.stringify(value)}`);
  }
  if (typeof value === 'string') problems.push(...checkString(value, s, path));
  if (typeof value === 'number') problems.push(...checkNumber(value, s, path));
  if (Array.isArray(value)) problems.push(...checkArray(value, s, root, path));
  else if (isObject(value)) problems.push(...checkObject(value, s, root, path));
  return problems;
}

function checkString(value: string, s: Schema, path: string): string[] {
  const problems: string[] = [];
  if (typeof s.minLength === 'number' && value.length < s.minLength) problems.push(`${path}: shorter than ${s.minLength}`);
  if (typeof s.maxLength === 'number' && value.length > s.maxLength) problems.push(`${path}: longer than ${s.maxLength}`);
  const formats: Record<string, RegExp> = {
    date: /^\d{4}-\d{2}-\d{2}$/,
    'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
    email: /^[^@\s]+@[^@\s]+\.[a-z]+$/,
    uri: /^[a-z][a-z0-9+.-]*:\/\/\S+$/,
    uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    ipv4: /^(\d{1,3}\.){3}\d{1,3}$/,
  };
  const format = typeof s.format === 'string' ? formats[s.format] : undefined;
  if (format !== undefined && !format.test(value)) problems.push(`${path}: not a ${s.format as string}`);
  if (s.format === 'date' || s.format === 'date-time') {
    if (Number.isNaN(Date.parse(value))) problems.push(`${path}: not a real date`);
  }
  return problems;
}

function checkNumber(value: number, s: Schema, path: string): string[] {
  const problems: string[] = [];
  if (typeof s.minimum === 'number' && (s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum))
    problems.push(`${path}: below minimum`);
  if (typeof s.maximum === 'number' && (s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum))
    problems.push(`${path}: above maximum`);
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) problems.push(`${path}: not above exclusiveMinimum`);
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) problems.push(`${path}: not below exclusiveMaximum`);
  if (typeof s.multipleOf === 'number') {
    const q = value / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) problems.push(`${path}: not a multiple of ${s.multipleOf}`);
  }
  return problems;
}

function checkArray(value: unknown[], s: Schema, root: unknown, path: string): string[] {
  const problems: string[] = [];
  if (typeof s.minItems === 'number' && value.length < s.minItems) problems.push(`${path}: fewer than ${s.minItems} items`);
  if (typeof s.maxItems === 'number' && value.length > s.maxItems) problems.push(`${path}: more than ${s.maxItems} items`);
  if (s.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length)
    problems.push(`${path}: items not unique`);
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : [];
  value.forEach((item, i) => {
    const itemSchema = i < tuple.length ? tuple[i] : s.items;
    problems.push(...validateAgainstSchema(item, itemSchema, root, `${path}[${i}]`));
  });
  return problems;
}

function checkObject(value: Record<string, unknown>, s: Schema, root: unknown, path: string): string[] {
  const problems: string[] = [];
  const properties = isObject(s.properties) ? s.properties : {};
  if (Array.isArray(s.required)) for (const key of s.required as string[]) if (!(key in value)) problems.push(`${path}: missing ${key}`);
  for (const [key, item] of Object.entries(value)) {
    if (key in properties) problems.push(...validateAgainstSchema(item, properties[key], root, `${path}.${key}`));
    else if (s.additionalProperties === false) problems.push(`${path}: unexpected ${key}`);
    else problems.push(...validateAgainstSchema(item, s.additionalProperties, root, `${path}.${key}`));
  }
  if (typeof s.minProperties === 'number' && Object.keys(value).length < s.minProperties)
    problems.push(`${path}: fewer than ${s.minProperties} properties`);
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

function resolve(root: unknown, ref: string): unknown {
  let node = root;
  for (const key of ref
    .replace(/^#\/?/, '')
    .split('/')
    .filter((k) => k !== ''))
    node = (node as Record<string, unknown>)[key];
  return node;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
