import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateRequestTokens, estimateTextTokens } from '../../canonical/estimate-tokens.ts';
import { simAdapter } from './sim-adapter.ts';
import { runSim, simEndpoint, simRequest, userSays } from './sim-fixtures.test-util.ts';
import { validateAgainstSchema } from './validate-against-schema.test-util.ts';

test('identifies as a local adapter of kind sim that honours the chat parameters', () => {
  assert.equal(simAdapter.kind, 'sim');
  assert.equal(simAdapter.transport, 'local');
  for (const p of [
    'temperature',
    'top_p',
    'max_tokens',
    'stop',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
    'response_format',
    'structured_outputs',
    'reasoning',
    'include_reasoning',
    'seed',
  ] as const) {
    assert.ok(simAdapter.supportedParameters.has(p), p);
  }
});

test('answers text that repeats the last user message and says it is the simulator', async () => {
  const req = simRequest([
    userSays('An earlier question'),
    { role: 'assistant', content: [{ type: 'text', text: 'An earlier answer' }] },
    userSays('What is the capital of France?'),
  ]);
  const run = await runSim(req);
  assert.match(run.text, /^You said: "What is the capital of France\?"/);
  assert.match(run.text, /switchyard simulator/);
  assert.deepEqual(run.response.finish, { unified: 'stop', raw: 'stop' });
  assert.equal(run.error, null);
});

test('streams stream-start, word-sized text deltas, finish, then usage', async () => {
  const run = await runSim(simRequest([userSays('Hello there')]));
  const first = run.parts[0]!;
  assert.equal(first.type, 'stream-start');
  assert.ok(first.type === 'stream-start' && /^sim-[0-9a-f]+$/.test(first.id ?? ''));
  assert.equal(run.response.model, 'sim-echo-1');
  const deltas = run.parts.filter((p) => p.type === 'text-delta');
  assert.ok(deltas.length > 10);
  for (const d of deltas) assert.ok(d.type === 'text-delta' && d.text.trim().split(/\s+/).length === 1, `chunk ${JSON.stringify(d)}`);
  assert.deepEqual(
    run.parts.slice(-2).map((p) => p.type),
    ['finish', 'usage'],
  );
});

test('usage counts the prompt with the estimator and the output it produced', async () => {
  const req = simRequest([{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, userSays('Count my tokens, please.')]);
  const run = await runSim(req);
  assert.deepEqual(run.response.usage, {
    input: estimateRequestTokens(req),
    cacheRead: 0,
    cacheWrite: 0,
    output: estimateTextTokens(run.text),
    reasoning: 0,
  });
});

test('maxOutputTokens cuts the answer and finishes with length', async () => {
  const full = await runSim(simRequest([userSays('Tell me a long story about trains')]));
  const cut = await runSim(simRequest([userSays('Tell me a long story about trains')], { maxOutputTokens: 8 }));
  assert.deepEqual(cut.response.finish, { unified: 'length', raw: 'length' });
  assert.ok(cut.text.length > 0 && cut.text.length < full.text.length);
  assert.ok(full.text.startsWith(cut.text));
  assert.ok(cut.response.usage!.output <= 8 && cut.response.usage!.output >= 5);
});

test("the endpoint's own output limit applies too", async () => {
  const run = await runSim(simRequest([userSays('Hello')]), simEndpoint({}, 4));
  assert.equal(run.response.finish?.unified, 'length');
  assert.ok(run.response.usage!.output <= 4);
});

test('a stop sequence cuts the output where it first appears', async () => {
  const run = await runSim(simRequest([userSays('alpha beta gamma delta')], { stop: ['delta', 'beta'] }));
  assert.equal(run.text, 'You said: "alpha ');
  assert.deepEqual(run.response.finish, { unified: 'stop', raw: 'stop', stopSequence: 'beta' });
  const missing = await runSim(simRequest([userSays('alpha')], { stop: ['zzz'] }));
  assert.deepEqual(missing.response.finish, { unified: 'stop', raw: 'stop' });
});

test('the token limit wins over a stop sequence it comes before', async () => {
  const run = await runSim(
    simRequest([userSays('one two three four five six seven eight nine ten')], { stop: ['ten'], maxOutputTokens: 5 }),
  );
  assert.equal(run.response.finish?.unified, 'length');
});

test('json_schema output parses and fits the schema', async () => {
  const schema = {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 3 },
      year: { type: 'integer', minimum: 1900, maximum: 2100 },
      released: { type: 'string', format: 'date' },
      genres: { type: 'array', items: { type: 'string', enum: ['drama', 'comedy'] }, minItems: 1 },
      rating: { $ref: '#/$defs/rating' },
    },
    required: ['title', 'year', 'released', 'genres', 'rating'],
    additionalProperties: false,
    $defs: { rating: { type: 'number', minimum: 0, maximum: 10 } },
  };
  const run = await runSim(
    simRequest([userSays('Describe a film')], { responseFormat: { type: 'json_schema', name: 'film', schema, strict: true } }),
  );
  const value: unknown = JSON.parse(run.text);
  assert.deepEqual(validateAgainstSchema(value, schema), []);
  assert.equal(run.response.finish?.unified, 'stop');
});

test('json_object output is a small JSON object with the answer', async () => {
  const run = await runSim(simRequest([userSays('Hi')], { responseFormat: { type: 'json_object' } }));
  const value = JSON.parse(run.text) as { answer: string };
  assert.match(value.answer, /^You said: "Hi"/);
});

test('reasoning comes first, then its signature, then the answer, and is counted in usage', async () => {
  const run = await runSim(simRequest([userSays('Think about this')], { reasoning: { effort: 'medium' } }));
  const types = run.parts.map((p) => p.type);
  const lastReasoning = types.lastIndexOf('reasoning-delta');
  const signature = types.indexOf('reasoning-signature');
  assert.ok(types.indexOf('reasoning-delta') === 1 && lastReasoning < signature && signature < types.indexOf('text-delta'));
  const block = run.response.content[0]!;
  assert.ok(block.type === 'reasoning' && block.text.length > 50);
  assert.ok(block.type === 'reasoning' && /^[A-Za-z0-9+/]+={0,2}$/.test(block.signature ?? ''));
  const usage = run.response.usage!;
  assert.equal(usage.reasoning, estimateTextTokens(block.type === 'reasoning' ? block.text : ''));
  assert.equal(usage.output, usage.reasoning + estimateTextTokens(run.text));
});

test('more effort or a bigger budget reasons longer; a budget caps it', async () => {
  const tokens = async (reasoning: object): Promise<number> =>
    (await runSim(simRequest([userSays('Think')], { reasoning }))).response.usage!.reasoning;
  assert.ok((await tokens({ effort: 'high' })) > (await tokens({ effort: 'low' })));
  assert.ok((await tokens({ maxTokens: 2000 })) > (await tokens({ maxTokens: 200 })));
  assert.ok((await tokens({ maxTokens: 20 })) <= 20);
  assert.ok((await tokens({})) > 0, 'an empty reasoning object turns reasoning on');
});

test('reasoning that is off produces none; excluded reasoning is still produced', async () => {
  for (const reasoning of [{ enabled: false }, { effort: 'none' as const }]) {
    const run = await runSim(simRequest([userSays('Quick')], { reasoning }));
    assert.ok(!run.parts.some((p) => p.type === 'reasoning-delta'));
    assert.equal(run.response.usage!.reasoning, 0);
  }
  const excluded = await runSim(simRequest([userSays('Quick')], { reasoning: { exclude: true } }));
  assert.ok(excluded.parts.some((p) => p.type === 'reasoning-delta'));
  assert.ok(excluded.response.usage!.reasoning > 0);
});

test('the same request gets the same parts every time', async () => {
  const req = simRequest([userSays('Deterministic?')], {
    reasoning: { effort: 'low' },
    tools: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
  });
  const a = await runSim(req);
  const b = await runSim(structuredClone(req));
  assert.deepEqual(JSON.parse(JSON.stringify(b.parts)), JSON.parse(JSON.stringify(a.parts)));
  const other = await runSim(simRequest([userSays('Something else')]));
  assert.notDeepEqual(other.response.id, a.response.id);
});

test('[sim:error] fails at once with a retryable provider_error', async () => {
  const run = await runSim(simRequest([userSays('please fail [sim:error]')]));
  assert.equal(run.parts.length, 1);
  assert.equal(run.error?.code, 'provider_error');
  assert.equal(run.error?.retryable, true);
  assert.equal(run.error?.metadata?.provider_name, 'sim');
});

test('[sim:error-midstream] streams part of the answer, then fails', async () => {
  const run = await runSim(simRequest([userSays('fail later [sim:error-midstream]')]));
  assert.equal(run.parts[0]?.type, 'stream-start');
  assert.ok(run.text.length > 0);
  assert.equal(run.parts.at(-1)?.type, 'error');
  assert.ok(!run.parts.some((p) => p.type === 'finish' || p.type === 'usage'));
});

test('[sim:length] finishes with length after about half the answer', async () => {
  const full = await runSim(simRequest([userSays('make it short')]));
  const run = await runSim(simRequest([userSays('make it short [sim:length]')]));
  assert.equal(run.response.finish?.unified, 'length');
  assert.ok(run.response.usage!.output < full.response.usage!.output);
});
