// The upstream of an OpenAI-compatible vendor: the OpenAI chat emulator behind a small proxy
// that plays the vendor's own wire quirks, shaped like each vendor's documented answers:
// - azure: deployment URLs with `api-version`, the `api-key` header (Bearer is refused);
// - mistral: unknown request fields refused (422, Mistral's `extra_forbidden` shape), usage
//   on the last stream chunk unasked, Magistral's reasoning as `thinking` content parts;
// - xai: `citations` (URLs) on the answer, on the last chunk when streaming;
// - deepseek: cache hits as `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`;
// - groq, openrouter, ollama: reasoning in `reasoning`; deepseek, vllm, together, fireworks, xai:
//   in `reasoning_content`; openai, azure: no reasoning text at all.
// Every vendor's credential is checked, so a wrong auth header fails the case. What each
// vendor refuses (content kinds, JSON schemas) or leaves out (cached-token counts) is in
// vendor-limits.ts.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'undici';
import { closeServer, listenOnLoopback, parseBody, readBody, sendJson } from '../../emulators/emulator-http.ts';
import {
  startOpenAIChatEmulator,
  type AnswerStep,
  type EmulatorStep,
  type OpenAIChatEmulator,
} from '../../emulators/openai-chat-emulator.ts';
import type { RecordedUpstreamRequest, ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';
import { contentRefusal, NO_CACHED_TOKENS, withoutCachedTokens } from './vendor-limits.ts';

/** Mistral's documented chat request fields; anything else is refused. */
const MISTRAL_FIELDS = new Set([
  'model',
  'messages',
  'temperature',
  'top_p',
  'max_tokens',
  'stream',
  'stop',
  'random_seed',
  'response_format',
  'tools',
  'tool_choice',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'prediction',
  'parallel_tool_calls',
  'safe_prompt',
  'prompt_mode',
]);

const REASONING_IN_REASONING = new Set(['groq', 'openrouter', 'ollama']);
const NO_REASONING_TEXT = new Set(['openai', 'azure']);

interface Quirks {
  citations?: string[];
}

export async function startOpenAIVendorUpstream(vendor: string, apiKey: string | undefined): Promise<Upstream> {
  const emulator = await startOpenAIChatEmulator();
  const proxy = new VendorProxy(vendor, apiKey, emulator);
  await proxy.listen();
  return proxy;
}

class VendorProxy implements Upstream {
  baseUrl = '';
  readonly scriptable = true;
  private readonly vendor: string;
  private readonly apiKey: string | undefined;
  private readonly emulator: OpenAIChatEmulator;
  private readonly server: Server;
  private readonly received: RecordedUpstreamRequest[] = [];
  private readonly quirks: Quirks[] = [];

  constructor(vendor: string, apiKey: string | undefined, emulator: OpenAIChatEmulator) {
    this.vendor = vendor;
    this.apiKey = apiKey;
    this.emulator = emulator;
    this.server = createServer((req, res) => {
      readBody(req, (text) => {
        this.handle(req, res, text).catch(() => res.destroy());
      });
    });
  }

  async listen(): Promise<void> {
    const origin = await listenOnLoopback(this.server);
    // Azure's base is the resource origin; the others' includes /v1.
    this.baseUrl = this.vendor === 'azure' ? origin : `${origin}/v1`;
  }

  script(step: ScriptedAnswer | ScriptedFault): void {
    if ('fault' in step) {
      this.emulator.enqueue(faultStep(step));
      this.quirks.push({});
      return;
    }
    this.emulator.enqueue(this.answerStep(step));
    this.quirks.push(step.citations === undefined ? {} : { citations: step.citations });
  }

  requests(): RecordedUpstreamRequest[] {
    return this.received;
  }

  reset(): void {
    this.received.length = 0;
    this.quirks.length = 0;
    this.emulator.reset();
  }

  async close(): Promise<void> {
    await closeServer(this.server);
    await this.emulator.close();
  }

  private answerStep(answer: ScriptedAnswer): AnswerStep {
    const step: AnswerStep = {};
    if (answer.text !== undefined) step.text = answer.text;
    if (answer.textChunks !== undefined) step.chunks = answer.textChunks;
    if (answer.reasoning !== undefined && !NO_REASONING_TEXT.has(this.vendor)) {
      step.reasoning = answer.reasoning;
      step.reasoningField = REASONING_IN_REASONING.has(this.vendor) ? 'reasoning' : 'reasoning_content';
    }
    if (answer.toolCalls !== undefined) step.toolCalls = answer.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    if (answer.finish !== undefined) step.finishReason = answer.finish;
    if (answer.usage !== undefined) {
      step.usage = {
        prompt_tokens: answer.usage.input,
        completion_tokens: answer.usage.output,
        cached_tokens: answer.usage.cacheRead ?? 0,
        reasoning_tokens: answer.usage.reasoning ?? 0,
      };
    }
    return step;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const body = parseBody(text);
    const path = req.url ?? '';
    this.received.push({ path, headers: req.headers, body });
    const quirks = this.quirks.shift() ?? {};
    const refusal = this.refusal(req, path, body);
    if (refusal !== null) {
      sendJson(res, refusal.status, refusal.body);
      return;
    }
    // Mistral reports streaming usage unasked; the emulator needs asking.
    const forward = this.vendor === 'mistral' && body.stream === true ? { ...body, stream_options: { include_usage: true } } : body;
    const upstream = await request(`${this.emulator.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forward),
    });
    const answer = await upstream.body.text();
    const contentType = String(upstream.headers['content-type'] ?? 'application/json');
    if (upstream.statusCode >= 400) {
      res.writeHead(upstream.statusCode, pickHeaders(upstream.headers));
      res.end(answer);
      return;
    }
    const out = contentType.startsWith('text/event-stream') ? this.rewriteStream(answer, quirks) : this.rewriteBody(answer, quirks);
    res.writeHead(200, { 'content-type': contentType });
    res.end(out);
  }

  /** The vendor's own refusal of a request, or null when it would take it. */
  private refusal(req: IncomingMessage, path: string, body: any): { status: number; body: unknown } | null {
    if (this.vendor === 'azure') {
      if (!/^\/openai\/deployments\/[^/]+\/chat\/completions\?api-version=[\w.-]+$/.test(path)) {
        return { status: 404, body: { error: { code: '404', message: 'Resource not found' } } };
      }
      if (req.headers['api-key'] !== this.apiKey || req.headers.authorization !== undefined) {
        return {
          status: 401,
          body: { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } },
        };
      }
    } else {
      if (path !== '/v1/chat/completions') return { status: 404, body: { error: { message: `Unknown route ${path}` } } };
      const expected = this.apiKey === undefined ? undefined : `Bearer ${this.apiKey}`;
      if (req.headers.authorization !== expected)
        return { status: 401, body: { error: { message: 'Invalid API key', type: 'invalid_request_error' } } };
    }
    if (this.vendor === 'mistral' && typeof body === 'object' && body !== null) {
      for (const key of Object.keys(body)) {
        if (!MISTRAL_FIELDS.has(key)) {
          return {
            status: 422,
            body: {
              object: 'error',
              message: {
                detail: [{ type: 'extra_forbidden', loc: ['body', key], msg: 'Extra inputs are not permitted', input: body[key] }],
              },
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          };
        }
      }
    }
    return contentRefusal(this.vendor, path, body);
  }

  private rewriteBody(text: string, quirks: Quirks): string {
    const body = JSON.parse(text);
    if (body.error !== undefined) return text;
    if (quirks.citations !== undefined) body.citations = quirks.citations;
    if (body.usage !== undefined) body.usage = this.rewriteUsage(body.usage);
    const message = body.choices?.[0]?.message;
    if (this.vendor === 'mistral' && typeof message?.reasoning_content === 'string') {
      message.content = [thinkingPart(message.reasoning_content), { type: 'text', text: message.content ?? '' }];
      delete message.reasoning_content;
    }
    return JSON.stringify(body);
  }

  private rewriteStream(text: string, quirks: Quirks): string {
    const events = text.split('\n\n').filter((e) => e.length > 0);
    const done = events.length > 0 && events[events.length - 1] === 'data: [DONE]';
    const chunks = events.slice(0, done ? -1 : undefined).map((e) => JSON.parse(e.slice(6)));
    for (const chunk of chunks) {
      if (chunk.usage !== undefined && chunk.usage !== null) chunk.usage = this.rewriteUsage(chunk.usage);
      const delta = chunk.choices?.[0]?.delta;
      if (this.vendor === 'mistral' && typeof delta?.reasoning_content === 'string') {
        delta.content = [thinkingPart(delta.reasoning_content)];
        delete delta.reasoning_content;
      }
    }
    // xAI lists the citations once, on the last chunk.
    if (quirks.citations !== undefined && chunks.length > 0) chunks[chunks.length - 1].citations = quirks.citations;
    return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
  }

  private rewriteUsage(usage: any): any {
    if (NO_CACHED_TOKENS.has(this.vendor)) return withoutCachedTokens(usage);
    if (this.vendor !== 'deepseek') return usage;
    const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
    const { prompt_tokens_details: _details, ...rest } = usage;
    return { ...rest, prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: usage.prompt_tokens - cached };
  }
}

function thinkingPart(text: string): Record<string, unknown> {
  return { type: 'thinking', thinking: [{ type: 'text', text }] };
}

function faultStep(fault: ScriptedFault): EmulatorStep {
  switch (fault.fault) {
    case 'rejected':
      return {
        fault: 'status',
        status: 400,
        body: { error: { message: fault.message, type: 'invalid_request_error', param: null, code: null } },
      };
    case 'rate-limited':
      return { fault: 'rate-limit', retryAfterSeconds: fault.retryAfterSeconds };
    case 'server-error':
      return { fault: 'status', status: 503 };
    case 'mid-stream':
      return { fault: 'stream-error', afterChunks: 2 };
    default:
      throw new Error(`unknown fault ${JSON.stringify(fault satisfies never)}`);
  }
}

function pickHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['content-type', 'retry-after', 'retry-after-ms']) {
    const v = headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}
