import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseModels } from './parse-models.ts';
import { ConfigError } from './config-error.ts';

// `image_output_by` and `image_prompt` in YAML: strictly parsed, errors naming the field.

const model = (pricing: Record<string, unknown>) => [
  { id: 'acme/img', kind: 'image', endpoints: [{ provider: 'p', pricing: { prompt: '0', completion: '0', ...pricing } }] },
];

test('image_output_by takes <size>/<quality> keys, either side a star, prices as decimal strings', () => {
  const [parsed] = parseModels(
    model({
      image_output: '0.04',
      image_prompt: '0.00001',
      image_output_by: { '1024x1024/high': '0.167', '1536x1024/*': 0.25, '*/hd': '0.08', '*/*': '0.1' },
    }),
    'models',
  );
  assert.deepEqual(parsed!.endpoints![0]!.pricing, {
    prompt: '0',
    completion: '0',
    image_output: '0.04',
    image_prompt: '0.00001',
    image_output_by: { '1024x1024/high': '0.167', '1536x1024/*': '0.25', '*/hd': '0.08', '*/*': '0.1' },
  });
});

test('a malformed key, a bad price or a non-mapping is a config error at its path', () => {
  const cases: [unknown, string][] = [
    [{ '1024x1024': '0.1' }, 'models[0].endpoints[0].pricing.image_output_by.1024x1024'],
    [{ 'big/high': '0.1' }, 'models[0].endpoints[0].pricing.image_output_by.big/high'],
    [{ '1024x1024/HIGH': '0.1' }, 'models[0].endpoints[0].pricing.image_output_by.1024x1024/HIGH'],
    [{ '1024x1024/high': '-1' }, 'models[0].endpoints[0].pricing.image_output_by.1024x1024/high'],
    [{ '1024x1024/high': 'cheap' }, 'models[0].endpoints[0].pricing.image_output_by.1024x1024/high'],
    [['0.1'], 'models[0].endpoints[0].pricing.image_output_by'],
  ];
  for (const [by, path] of cases) {
    assert.throws(
      () => parseModels(model({ image_output_by: by }), 'models'),
      (err: unknown) => err instanceof ConfigError && err.message.includes(path),
      JSON.stringify(by),
    );
  }
  assert.throws(() => parseModels(model({ image_prompt: 'x' }), 'models'), /image_prompt/);
});
