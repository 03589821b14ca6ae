import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateValueForSchema } from './generate-value-for-schema.ts';
import { validateAgainstSchema } from './validate-against-schema.test-util.ts';

function assertFits(schema: Record<string, unknown>): unknown {
  const value = generateValueForSchema(schema);
  assert.deepEqual(validateAgainstSchema(value, schema), [], `${JSON.stringify(value)} does not fit ${JSON.stringify(schema)}`);
  return value;
}

test('primitive types', () => {
  assert.equal(typeof assertFits({ type: 'string' }), 'string');
  assert.ok(Number.isInteger(assertFits({ type: 'integer' })));
  assert.equal(typeof assertFits({ type: 'number' }), 'number');
  assert.equal(typeof assertFits({ type: 'boolean' }), 'boolean');
  assert.equal(assertFits({ type: 'null' }), null);
  assert.equal(typeof assertFits({ type: ['null', 'string'] }), 'string');
});

test('every property is filled, required or not, and nested objects too', () => {
  const schema = {
    type: 'object',
    properties: {
      city: { type: 'string' },
      options: {
        type: 'object',
        properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
        required: ['unit'],
      },
    },
    required: ['city'],
    additionalProperties: false,
  };
  const value = assertFits(schema) as { city: string; options: { unit: string; days: number } };
  assert.ok(value.city.length > 0);
  assert.equal(value.options.unit, 'celsius');
  assert.equal(typeof value.options.days, 'number');
});

test('a property named only in required still gets a value', () => {
  const value = assertFits({ type: 'object', properties: {}, required: ['note'] }) as Record<string, unknown>;
  assert.ok('note' in value);
});

test('const, enum, default and examples are used as given', () => {
  assert.equal(assertFits({ const: 'fixed' }), 'fixed');
  assert.equal(assertFits({ type: 'string', enum: ['a', 'b'] }), 'a');
  assert.equal(assertFits({ type: 'integer', default: 42 }), 42);
  assert.equal(assertFits({ type: 'string', examples: ['Europe/Paris'] }), 'Europe/Paris');
});

test('string formats and lengths', () => {
  for (const format of ['date', 'date-time', 'email', 'uri', 'uuid', 'ipv4']) assertFits({ type: 'string', format });
  assert.equal((assertFits({ type: 'string', minLength: 40 }) as string).length >= 40, true);
  assert.equal((assertFits({ type: 'string', maxLength: 3 }) as string).length <= 3, true);
  assertFits({ type: 'string', minLength: 5, maxLength: 5 });
});

test('number ranges, exclusive bounds in both drafts, multipleOf', () => {
  assertFits({ type: 'integer', minimum: 10 });
  assertFits({ type: 'integer', maximum: -5 });
  assertFits({ type: 'number', minimum: 0.25, maximum: 0.75 });
  assertFits({ type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 2 });
  assertFits({ type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 3 });
  assertFits({ type: 'integer', exclusiveMaximum: 0 });
  assertFits({ type: 'number', multipleOf: 0.1, minimum: 0.35 });
  assertFits({ type: 'integer', multipleOf: 5, minimum: 12, maximum: 30 });
  assertFits({ type: 'integer', minimum: 2.5 });
});

test('arrays honour minItems, maxItems, uniqueItems and tuples', () => {
  assert.equal((assertFits({ type: 'array', items: { type: 'string' } }) as unknown[]).length, 1);
  assert.equal((assertFits({ type: 'array', items: { type: 'integer' }, minItems: 3, uniqueItems: true }) as unknown[]).length, 3);
  assertFits({ type: 'array', items: { type: 'string', format: 'date' }, minItems: 4, uniqueItems: true });
  assertFits({ type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] }, minItems: 3, uniqueItems: true });
  assert.deepEqual(assertFits({ type: 'array', maxItems: 0 }), []);
  const tuple = assertFits({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false });
  assert.equal((tuple as unknown[]).length, 2);
  assertFits({
    type: 'array',
    items: { type: 'object', properties: { id: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' }, minItems: 2 } } },
    minItems: 2,
  });
});

test('anyOf and oneOf take the first branch; allOf merges', () => {
  assert.equal(typeof assertFits({ anyOf: [{ type: 'string' }, { type: 'null' }] }), 'string');
  assert.equal(typeof assertFits({ oneOf: [{ type: 'integer', minimum: 3 }, { type: 'string' }] }), 'number');
  const merged = assertFits({
    allOf: [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      { properties: { b: { type: 'boolean' } }, required: ['b'] },
    ],
  });
  assert.deepEqual(Object.keys(merged as object).sort(), ['a', 'b']);
});

test('$ref resolves into $defs and definitions of the same schema', () => {
  const schema = {
    type: 'object',
    properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/definitions/address' } },
    required: ['home', 'work'],
    $defs: {
      address: {
        type: 'object',
        properties: { street: { type: 'string' }, zip: { type: 'string', minLength: 5, maxLength: 5 } },
        required: ['street', 'zip'],
      },
    },
    definitions: { address: { type: 'object', properties: { country: { type: 'string', enum: ['FR', 'DE'] } }, required: ['country'] } },
  };
  const value = assertFits(schema) as { home: { zip: string }; work: { country: string } };
  assert.equal(value.home.zip.length, 5);
  assert.equal(value.work.country, 'FR');
});

test('recursive schemas terminate', () => {
  const schema = {
    $defs: {
      node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } },
    },
    $ref: '#/$defs/node',
  };
  assertFits(schema);
  const required = {
    $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } },
    $ref: '#/$defs/node',
  };
  assert.equal(typeof generateValueForSchema(required), 'object');
});

test('types are inferred from keywords when absent', () => {
  assert.equal(typeof assertFits({ properties: { x: { minimum: 4 } } }), 'object');
  assert.ok(Array.isArray(assertFits({ items: { type: 'boolean' } })));
});

test('the same schema always gives the same value', () => {
  const schema = {
    type: 'object',
    properties: {
      when: { type: 'string', format: 'date-time' },
      n: { type: 'number', minimum: 3 },
      list: { type: 'array', items: { type: 'string' }, minItems: 2 },
    },
  };
  assert.deepEqual(generateValueForSchema(schema), generateValueForSchema(structuredClone(schema)));
});
