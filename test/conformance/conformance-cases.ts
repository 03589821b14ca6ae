// The canonical cases every adapter runs. Each says what a user relies on, in canonical
// terms: the answer scripted upstream (when the upstream can be scripted), what must come
// back, streamed and not, and (through the subject) what the upstream must have received.

import assert from 'node:assert/strict';
import type { CanonicalRequest, Message } from '../../src/canonical/request.ts';
import type { CanonicalResponse } from '../../src/canonical/response.ts';
import type { CaseId, ConformanceSubject, RecordedUpstreamRequest, ScriptedAnswer, ScriptedFault, Upstream } from './conformance-types.ts';
import {
  canonicalRequest,
  PDF_BASE64,
  PNG_BASE64,
  PROVIDER_EXTRAS,
  THOUGHT_SIGNATURE,
  TIME_TOOL,
  user,
  WAV_BASE64,
  WEATHER_SCHEMA,
  WEATHER_TOOL,
} from './conformance-fixtures.ts';
import type { CaseResult, ExecutorHarness } from './run-through-executor.ts';

export interface CaseContext {
  readonly subject: ConformanceSubject;
  readonly upstream: Upstream;
  readonly harness: ExecutorHarness;
}

export interface ConformanceCase {
  readonly id: CaseId;
  readonly title: string;
  run(ctx: CaseContext): Promise<void>;
}

// ---- helpers ----

/** Scripts the answer for each run when the upstream takes scripts. */
function script(ctx: CaseContext, step: ScriptedAnswer | ScriptedFault, times = 1): void {
  if (!ctx.upstream.scriptable) return;
  for (let i = 0; i < times; i++) ctx.upstream.script(step);
}

/**
 * The request non-streamed, then streamed, each answered with `answer`: both must succeed
 * and fold to the same response (tool-call ids aside: they may be minted per answer).
 */
async function both(
  ctx: CaseContext,
  request: CanonicalRequest,
  answer: ScriptedAnswer,
): Promise<{ plain: CaseResult; streamed: CaseResult; received: RecordedUpstreamRequest[] }> {
  const before = ctx.upstream.requests().length;
  // Stated usage: an emulator's own estimate reads the request, which a stream changes.
  script(ctx, answer.usage === undefined ? { ...answer, usage: { input: 10, output: 5 } } : answer, 2);
  const plain = await ctx.harness.run({ ...request, stream: false });
  const streamed = await ctx.harness.run({ ...request, stream: true });
  assert.equal(plain.error, null, `non-streamed: ${plain.error?.message}`);
  assert.equal(streamed.error, null, `streamed: ${streamed.error?.message}`);
  assert.deepEqual(comparable(streamed.response), comparable(plain.response), 'the streamed answer folds to the non-streamed one');
  return { plain, streamed, received: ctx.upstream.requests().slice(before) };
}

function comparable(r: CanonicalResponse): unknown {
  let call = 0;
  return {
    ...r,
    id: undefined,
    content: r.content.map((c) => (c.type === 'tool-call' ? { ...c, id: `#${call++}` } : c)),
    usage: r.usage === null ? null : { ...r.usage, raw: undefined },
  };
}

function check(
  ctx: CaseContext,
  caseId: CaseId,
  request: CanonicalRequest,
  received: RecordedUpstreamRequest | undefined,
  signature?: string,
): void {
  assert.ok(received !== undefined, 'the upstream received the request');
  ctx.subject.checkRequest(signature === undefined ? { caseId, request, received } : { caseId, request, received, signature });
}

function textOf(r: CanonicalResponse): string {
  let text = '';
  for (const c of r.content) if (c.type === 'text') text += c.text;
  return text;
}

function toolCalls(r: CanonicalResponse) {
  return r.content.filter((c) => c.type === 'tool-call');
}

function argumentsObject(json: string): Record<string, unknown> {
  const value: unknown = JSON.parse(json);
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `arguments are a JSON object: ${json}`);
  return value as Record<string, unknown>;
}

/** A fault the upstream cannot script, asked of a local adapter through its request. */
function withFault(ctx: CaseContext, request: CanonicalRequest, fault: ScriptedFault): CanonicalRequest {
  if (ctx.upstream.scriptable) {
    ctx.upstream.script(fault);
    return request;
  }
  const inject = ctx.subject.injectFault;
  assert.ok(inject !== undefined, `${ctx.subject.name} can neither script nor inject ${fault.fault}`);
  return inject(fault, request);
}

// ---- the cases ----

export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  {
    id: 'plain-text',
    title: 'answers a plain text prompt, with a stop finish and usage',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Say hello.')] });
      const { plain, received } = await both(ctx, request, { text: 'Hello there.', usage: { input: 12, output: 3 } });
      const text = textOf(plain.response);
      if (ctx.upstream.scriptable) assert.equal(text, 'Hello there.');
      else assert.ok(text.length > 0);
      assert.equal(plain.response.finish?.unified, 'stop');
      assert.ok(plain.response.usage !== null && plain.response.usage.input > 0 && plain.response.usage.output > 0, 'usage is reported');
      check(ctx, 'plain-text', request, received[0]);
    },
  },
  {
    id: 'streaming',
    title: 'streams text piece by piece, then the finish, then one usage',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Count from one to five.')], stream: true });
      script(ctx, { text: 'One two three four five.', textChunks: 5 });
      const before = ctx.upstream.requests().length;
      const result = await ctx.harness.run(request);
      assert.equal(result.error, null);
      const types = result.parts.map((p) => p.type);
      const deltas = result.parts.filter((p) => p.type === 'text-delta');
      if (ctx.upstream.scriptable)
        assert.deepEqual(deltas.map((p) => p.type === 'text-delta' && p.text).join(''), 'One two three four five.');
      assert.ok(deltas.length >= (ctx.upstream.scriptable ? 5 : 2), `text arrives in pieces (${deltas.length})`);
      assert.equal(types[0], 'stream-start');
      assert.equal(types.filter((t) => t === 'finish').length, 1);
      assert.equal(types.filter((t) => t === 'usage').length, 1, 'usage once, not per chunk');
      assert.ok(types.lastIndexOf('text-delta') < types.indexOf('finish'), 'the finish comes after the text');
      assert.ok(types.indexOf('finish') < types.indexOf('usage'), 'then the usage');
      check(ctx, 'streaming', request, ctx.upstream.requests()[before]);
    },
  },
  {
    id: 'tool-call-round-trip',
    title: 'calls a tool, then answers from its result when the client sends back only id, name and arguments',
    async run(ctx) {
      const ask = user('What is the weather in Paris? Use get_weather.');
      const first = canonicalRequest({ messages: [ask], tools: [WEATHER_TOOL], toolChoice: { type: 'auto' } });
      const call = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}', signature: THOUGHT_SIGNATURE };
      const { plain } = await both(ctx, first, { toolCalls: [call], finish: 'tool_calls' });
      const calls = toolCalls(plain.response);
      assert.equal(calls.length, 1);
      const made = calls[0]!;
      assert.ok(made.type === 'tool-call');
      assert.equal(made.name, 'get_weather');
      const args = argumentsObject(made.arguments);
      assert.equal(typeof args.city, 'string');
      if (ctx.upstream.scriptable) assert.deepEqual(args, { city: 'Paris' });
      assert.equal(plain.response.finish?.unified, 'tool_calls');

      // What a chat-completions client keeps of the call: no signature, no reasoning.
      const history: Message[] = [
        ask,
        { role: 'assistant', content: [{ type: 'tool-call', id: made.id, name: made.name, arguments: made.arguments }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: made.id, content: '{"temp_c":21,"sky":"sunny"}' }] },
      ];
      const second = canonicalRequest({ messages: history, tools: [WEATHER_TOOL] });
      const { plain: answer, received } = await both(ctx, second, { text: 'It is 21°C and sunny in Paris.' });
      const text = textOf(answer.response);
      if (ctx.upstream.scriptable) assert.equal(text, 'It is 21°C and sunny in Paris.');
      else assert.match(text, /21/);
      assert.equal(answer.response.finish?.unified, 'stop');
      check(ctx, 'tool-call-round-trip', second, received[0], THOUGHT_SIGNATURE);
    },
  },
  {
    id: 'parallel-tool-calls',
    title: 'makes several tool calls in one turn, each apart and in order',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Call get_weather and get_time for Paris.')], tools: [WEATHER_TOOL, TIME_TOOL] });
      const { plain, received } = await both(ctx, request, {
        toolCalls: [
          { id: 'call_p1', name: 'get_weather', arguments: '{"city":"Paris"}', signature: THOUGHT_SIGNATURE },
          { id: 'call_p2', name: 'get_time', arguments: '{"city":"Paris"}' },
        ],
        finish: 'tool_calls',
      });
      const calls = toolCalls(plain.response);
      assert.deepEqual(
        calls.map((c) => c.type === 'tool-call' && c.name),
        ['get_weather', 'get_time'],
      );
      const ids = calls.map((c) => c.type === 'tool-call' && c.id);
      assert.equal(new Set(ids).size, 2, 'distinct ids');
      for (const c of calls) {
        const args = c.type === 'tool-call' ? argumentsObject(c.arguments) : {};
        if (ctx.upstream.scriptable) assert.deepEqual(args, { city: 'Paris' });
      }
      assert.equal(plain.response.finish?.unified, 'tool_calls');
      check(ctx, 'parallel-tool-calls', request, received[0]);
    },
  },
  {
    id: 'structured-output',
    title: 'answers JSON that fits the requested schema',
    async run(ctx) {
      const request = canonicalRequest({
        messages: [user('Weather in Paris as JSON.')],
        responseFormat: { type: 'json_schema', name: 'weather', schema: WEATHER_SCHEMA, strict: true },
      });
      const { plain, received } = await both(ctx, request, { text: '{"city":"Paris","temp_c":21}' });
      const value = JSON.parse(textOf(plain.response)) as Record<string, unknown>;
      assert.equal(typeof value.city, 'string');
      assert.equal(typeof value.temp_c, 'number');
      check(ctx, 'structured-output', request, received[0]);
    },
  },
  {
    id: 'image-input',
    title: 'carries an image to the model',
    async run(ctx) {
      const request = canonicalRequest({
        messages: [user('What is in this image?', { type: 'image', url: `data:image/png;base64,${PNG_BASE64}` })],
      });
      const { plain, received } = await both(ctx, request, { text: 'A red dot.' });
      assert.equal(textOf(plain.response), 'A red dot.');
      check(ctx, 'image-input', request, received[0]);
    },
  },
  {
    id: 'pdf-input',
    title: 'carries a PDF to the model',
    async run(ctx) {
      const request = canonicalRequest({
        messages: [
          user('Summarize this document.', { type: 'file', data: PDF_BASE64, mediaType: 'application/pdf', filename: 'report.pdf' }),
        ],
      });
      const { plain, received } = await both(ctx, request, { text: 'A one-page report.' });
      assert.equal(textOf(plain.response), 'A one-page report.');
      check(ctx, 'pdf-input', request, received[0]);
    },
  },
  {
    id: 'audio-input',
    title: 'carries audio to the model',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Transcribe this.', { type: 'audio', data: WAV_BASE64, format: 'wav' })] });
      const { plain, received } = await both(ctx, request, { text: 'Silence.' });
      assert.equal(textOf(plain.response), 'Silence.');
      check(ctx, 'audio-input', request, received[0]);
    },
  },
  {
    id: 'reasoning',
    title: 'asks for reasoning and surfaces it (or its token count) before the answer',
    async run(ctx) {
      const request = canonicalRequest({
        messages: [user('What is the capital of France? Think first.')],
        reasoning: { effort: ctx.subject.reasoningEffort ?? 'high' },
      });
      const thought = 'The user asks for the capital of France. That is Paris.';
      const { plain, received } = await both(ctx, request, {
        reasoning: thought,
        text: 'Paris.',
        usage: { input: 20, output: 40, reasoning: 30 },
      });
      const content = plain.response.content;
      if (ctx.subject.reasoningText) {
        const first = content[0];
        assert.ok(first?.type === 'reasoning' && first.text.length > 0, 'reasoning comes first');
        if (ctx.upstream.scriptable) assert.equal(first.text, thought);
      } else {
        assert.equal(
          content.some((c) => c.type === 'reasoning'),
          false,
        );
      }
      assert.ok(textOf(plain.response).length > 0);
      const reasoningTokens = plain.response.usage?.reasoning ?? 0;
      if (ctx.upstream.scriptable) assert.equal(reasoningTokens, ctx.subject.reportsReasoningTokens === false ? 0 : 30);
      else assert.ok(reasoningTokens > 0);
      check(ctx, 'reasoning', request, received[0]);
    },
  },
  {
    id: 'stop-sequences',
    title: 'sends stop sequences and ends before them',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('List three colours.')], stop: ['simulator'] });
      const { plain, received } = await both(ctx, request, { text: 'Red, green and blue.' });
      assert.doesNotMatch(textOf(plain.response), /simulator/);
      assert.equal(plain.response.finish?.unified, 'stop');
      check(ctx, 'stop-sequences', request, received[0]);
    },
  },
  {
    id: 'error-rejected',
    title: "reports a request the provider refuses as the client's error, not retryable",
    async run(ctx) {
      for (const stream of [false, true]) {
        const request = withFault(ctx, canonicalRequest({ stream }), { fault: 'rejected', message: 'Invalid value for temperature' });
        const result = await ctx.harness.run(request);
        assert.equal(result.error?.code, 'upstream_rejected_request', `stream=${stream}`);
        assert.equal(result.error?.status, 400);
        assert.equal(result.error?.retryable, false);
        assert.match(result.error.message, /Invalid value for temperature/);
        assert.equal(result.parts.length, 0);
      }
    },
  },
  {
    id: 'error-rate-limited',
    title: "reports the provider's rate limit as a retryable provider error with its delay",
    async run(ctx) {
      for (const stream of [false, true]) {
        const request = withFault(ctx, canonicalRequest({ stream }), { fault: 'rate-limited', retryAfterSeconds: 7 });
        const result = await ctx.harness.run(request);
        assert.equal(result.error?.code, 'provider_error', `stream=${stream}`);
        assert.equal(result.error?.retryable, true);
        assert.equal(result.error?.metadata?.retry_after_seconds, 7);
      }
    },
  },
  {
    id: 'error-server',
    title: 'reports a provider failure as a retryable provider error',
    async run(ctx) {
      for (const stream of [false, true]) {
        const request = withFault(ctx, canonicalRequest({ stream }), { fault: 'server-error' });
        const result = await ctx.harness.run(request);
        assert.equal(result.error?.code, 'provider_error', `stream=${stream}`);
        assert.equal(result.error?.retryable, true);
        assert.equal(result.error?.metadata?.provider_name, ctx.subject.config.id);
      }
    },
  },
  {
    id: 'error-mid-stream',
    title: 'ends a stream that fails after its first content with an error, keeping what arrived',
    async run(ctx) {
      const request = withFault(ctx, canonicalRequest({ stream: true }), { fault: 'mid-stream' });
      const result = await ctx.harness.run(request);
      assert.equal(result.error?.code, 'provider_error');
      assert.ok(
        result.parts.some((p) => p.type === 'text-delta'),
        'the content before the failure arrived',
      );
      assert.equal(
        result.parts.some((p) => p.type === 'finish'),
        false,
      );
    },
  },
  {
    id: 'usage',
    title: 'normalizes usage: input includes cache reads, output includes reasoning',
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Say ok.')] });
      const { plain } = await both(ctx, request, { text: 'ok', usage: { input: 1000, cacheRead: 400, output: 120, reasoning: 30 } });
      const usage = plain.response.usage;
      assert.ok(usage !== null);
      if (ctx.upstream.scriptable) {
        const cacheRead = ctx.subject.reportsCacheReads === false ? 0 : 400;
        const reasoning = ctx.subject.reportsReasoningTokens === false ? 0 : 30;
        assert.deepEqual({ ...usage, raw: undefined }, { input: 1000, cacheRead, cacheWrite: 0, output: 120, reasoning, raw: undefined });
      } else {
        assert.ok(usage.input > 0 && usage.output > 0 && usage.cacheRead <= usage.input && usage.reasoning <= usage.output);
      }
    },
  },
  {
    id: 'prompt-caching',
    title: 'passes the cache hints it can and reports cache reads',
    async run(ctx) {
      const request = canonicalRequest({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You are a weather bot. '.repeat(20), cacheControl: { type: 'ephemeral' } }] },
          user('Weather in Paris?'),
        ],
        promptCacheKey: 'conversation-42',
      });
      const { plain, received } = await both(ctx, request, { text: 'Sunny.', usage: { input: 1000, cacheRead: 800, output: 2 } });
      assert.equal(plain.response.usage?.cacheRead, 800);
      check(ctx, 'prompt-caching', request, received[0]);
    },
  },
  {
    id: 'provider-parameters',
    title: "passes its own provider-specific parameters through and no one else's",
    async run(ctx) {
      const request = canonicalRequest({ messages: [user('Latest news?')], extra: { ...PROVIDER_EXTRAS } });
      const citations = ctx.subject.citations === true ? ['https://example.com/news/1', 'https://x.com/i/status/2'] : undefined;
      const answer: ScriptedAnswer = citations === undefined ? { text: 'Here is the news.' } : { text: 'Here is the news.', citations };
      const { plain, received } = await both(ctx, request, answer);
      if (citations !== undefined) assert.deepEqual(plain.response.finish?.citations, citations, 'citations come back on the finish');
      if (!ctx.upstream.scriptable) {
        // A local adapter has no wire to pass them on: they must change nothing in its answer.
        const { plain: without } = await both(ctx, canonicalRequest({ messages: [user('Latest news?')] }), answer);
        assert.deepEqual(comparable(plain.response), comparable(without.response), "other providers' parameters change nothing");
        assert.deepEqual(ctx.subject.providerParameters, [], 'a local adapter takes no provider parameters');
        return;
      }
      assert.ok(received[0] !== undefined, 'the upstream received the request');
      const body = received[0].body as Record<string, unknown>;
      for (const key of Object.keys(PROVIDER_EXTRAS)) {
        if (ctx.subject.providerParameters.includes(key)) assert.deepEqual(body[key], PROVIDER_EXTRAS[key], `${key} passes through`);
        else assert.equal(key in body, false, `${key} is not sent`);
      }
    },
  },
];
