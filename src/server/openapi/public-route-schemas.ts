import type { FastifySchema } from 'fastify';
import { routeSchema, type RouteDoc } from '../routes/admin/route-schema.ts';

// The OpenAPI descriptions of the public routes registered in server/routes/ without a
// schema of their own (keyed by method and path after the prefix). Documentation only:
// the dialects validate their own bodies and render errors in their own shapes, so these
// schemas change no behaviour (`docsOnly`). The key-management routes declare their own,
// strict schemas (keys-route.ts).

const TRANSCRIPT = {
  'application/json': { $ref: 'Transcription#' },
  'text/plain': { type: 'string', description: 'response_format text, srt or vtt.' },
};

const open = (description: string): Record<string, unknown> => ({ type: 'object', additionalProperties: true, description });

const chatBody = {
  ...open(
    'An OpenAI chat completions request (docs/configuration.md, the spec): model or models, messages, tools, stream, provider preferences, ...',
  ),
  properties: {
    model: { type: 'string' },
    models: { type: 'array', items: { type: 'string' } },
    messages: { type: 'array', items: open('A message') },
    stream: { type: 'boolean' },
  },
};
const messagesBody = {
  ...open('An Anthropic messages request: model, max_tokens, messages, system, tools, stream, thinking, ...'),
  properties: {
    model: { type: 'string' },
    max_tokens: { type: 'integer' },
    messages: { type: 'array', items: open('A message') },
    stream: { type: 'boolean' },
  },
};
const responsesBody = {
  ...open('An OpenAI responses request: model, input, instructions, tools, stream, ...'),
  properties: { model: { type: 'string' }, input: { description: 'Text or a list of input items' }, stream: { type: 'boolean' } },
};

const embeddingsBody = {
  ...open('An OpenAI embeddings request: model, input, encoding_format, dimensions, user, provider, models'),
  properties: {
    model: { type: 'string' },
    input: { description: 'A string, strings, a token array or token arrays' },
    encoding_format: { enum: ['float', 'base64'] },
    dimensions: { type: 'integer' },
  },
};

const imagesBody = {
  ...open(
    'An OpenAI image generation request: model, prompt, n, size, quality, response_format, output_format, output_compression, background, style, moderation, user, provider, models',
  ),
  properties: {
    model: { type: 'string' },
    prompt: { type: 'string' },
    n: { type: 'integer', minimum: 1, maximum: 10 },
    size: { type: 'string' },
    quality: { enum: ['auto', 'low', 'medium', 'high', 'standard', 'hd'] },
    response_format: { enum: ['b64_json', 'url'] },
    output_format: { enum: ['png', 'jpeg', 'webp'] },
  },
};

const speechBody = {
  ...open(
    'An OpenAI speech request: model, input (at most 4,096 characters), voice, response_format, speed, instructions, provider, models',
  ),
  properties: {
    model: { type: 'string' },
    input: { type: 'string' },
    voice: { type: 'string' },
    response_format: { enum: ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] },
    speed: { type: 'number', minimum: 0.25, maximum: 4 },
    instructions: { type: 'string' },
  },
};

const docs: Record<string, RouteDoc> = {
  'POST /chat/completions': {
    summary: 'Chat completions (OpenAI dialect); SSE when stream is true',
    tags: ['models'],
    body: chatBody,
    response: 'A chat completion, or an SSE stream of chunks',
    answers: 'ChatCompletion',
  },
  'POST /messages': {
    summary:
      'Messages (Anthropic dialect); SSE when stream is true. Also served at <prefix>/v1/messages (an SDK appends /v1/messages to a base address ending in /v1), an undocumented alias',
    tags: ['models'],
    body: messagesBody,
    response: 'A message, or an SSE stream of events',
    answers: 'AnthropicMessage',
    errors: 'AnthropicError',
  },
  'POST /v1/messages': {
    summary: 'Messages (Anthropic dialect), for clients whose base address lacks /v1',
    tags: ['models'],
    body: messagesBody,
    response: 'A message, or an SSE stream of events',
    answers: 'AnthropicMessage',
    errors: 'AnthropicError',
  },
  'POST /messages/count_tokens': {
    summary: 'Count the input tokens of a messages request (also at <prefix>/v1/messages/count_tokens, an undocumented alias)',
    tags: ['models'],
    body: messagesBody,
    response: '{input_tokens}',
    answers: 'InputTokens',
    errors: 'AnthropicError',
  },
  'POST /v1/messages/count_tokens': {
    summary: 'Count the input tokens of a messages request (base address without /v1)',
    tags: ['models'],
    body: messagesBody,
    response: '{input_tokens}',
    answers: 'InputTokens',
    errors: 'AnthropicError',
  },
  'POST /responses': {
    summary: 'Responses (OpenAI responses dialect); SSE when stream is true',
    tags: ['models'],
    body: responsesBody,
    response: 'A response, or an SSE stream of events',
    answers: 'Response',
  },
  'POST /embeddings': {
    summary: 'Embeddings (OpenAI shape): vectors for a text, texts or token arrays',
    tags: ['models'],
    body: embeddingsBody,
    response: '{object: "list", data: [{object: "embedding", index, embedding}], model, usage}',
    answers: 'Embeddings',
  },
  'POST /images/generations': {
    summary: 'Image generation (OpenAI shape): n images for a prompt, as base64 or gateway URLs',
    tags: ['models'],
    body: imagesBody,
    response: '{created, data: [{b64_json | url, revised_prompt?}], output_format, size, quality, background, usage}',
    answers: 'Images',
  },
  'POST /images/edits': {
    summary:
      'Image edits (OpenAI shape, multipart/form-data): image or image[] files, an optional PNG mask, prompt and the generation fields',
    tags: ['models'],
    response: '{created, data: [{b64_json | url}], output_format, size, quality, background, usage}',
    answers: 'Images',
  },
  'GET /images/files/:id': {
    summary: 'An image answered as a URL: served for server.image_url_ttl_seconds to keys of the account it was made for (404 otherwise)',
    tags: ['models'],
    params: { id: 'The image id from the URL.' },
    response: 'The image bytes (image/png, image/jpeg or image/webp)',
    produces: {
      'image/png': { type: 'string', format: 'binary' },
      'image/jpeg': { type: 'string', format: 'binary' },
      'image/webp': { type: 'string', format: 'binary' },
    },
  },
  'POST /audio/speech': {
    summary: 'Speech (OpenAI shape): the audio of a text, sent once charged',
    tags: ['models'],
    body: speechBody,
    response: 'The audio file (Content-Type by response_format), X-Generation-Id',
    produces: {
      'audio/mpeg': { type: 'string', format: 'binary' },
      'audio/opus': { type: 'string', format: 'binary' },
      'audio/aac': { type: 'string', format: 'binary' },
      'audio/flac': { type: 'string', format: 'binary' },
      'audio/wav': { type: 'string', format: 'binary' },
      'audio/pcm': { type: 'string', format: 'binary' },
    },
  },
  'POST /audio/transcriptions': {
    summary:
      'Transcription (OpenAI shape, multipart/form-data: file, model, language, prompt, response_format, timestamp_granularities[], temperature)',
    tags: ['models'],
    response: '{text, usage}, verbose_json, or text/srt/vtt as text/plain',
    produces: TRANSCRIPT,
  },
  'POST /audio/translations': {
    summary: 'Translation to English (OpenAI shape, multipart/form-data: file, model, prompt, response_format, temperature)',
    tags: ['models'],
    response: '{text, usage}, verbose_json, or text/srt/vtt as text/plain',
    produces: TRANSCRIPT,
  },
  'GET /models': { summary: 'The model list', tags: ['models'], response: '{object: "list", data: [model]}', answers: 'ModelList' },
  'GET /models/*': {
    summary: 'One model by id (author/slug, alias or bare name; the slash may be encoded as %2F)',
    tags: ['models'],
    response: 'The model record',
    answers: 'Model',
  },
  'GET /models/:author/:slug/endpoints': {
    summary: "A model's endpoints with their live health",
    tags: ['models'],
    params: { author: 'The model author.', slug: 'The model slug.' },
    response: '{data: {id, name, endpoints: [...]}}',
    answers: 'ModelEndpoints',
  },
  'GET /key': {
    summary: 'The status of the calling key',
    tags: ['keys'],
    query: { details: { type: 'boolean', description: 'true adds balance and usage statistics.' } },
    response: '{data: key status}',
    answers: 'KeyStatus',
  },
  'GET /credits': {
    summary: "The account's credits granted and used",
    tags: ['credits'],
    response: '{data: {total_credits, total_usage}}',
    answers: 'Credits',
  },
  'GET /generation': {
    summary: 'One generation record of the account',
    tags: ['generations'],
    query: { id: 'The generation id (X-Generation-Id).' },
    response: '{data: generation}',
    answers: 'GenerationAnswer',
  },
  'GET /openapi.json': {
    summary: 'This OpenAPI 3.1 document',
    tags: ['meta'],
    response: 'The OpenAPI document',
    answers: 'OpenApiDocument',
  },
};

const PREFIXES = ['/api/v1', '/v1'];

/** Routes outside the API prefixes: the probes (docs/operations.md), unauthenticated. */
const unprefixed: Record<string, RouteDoc> = {
  'GET /health': {
    summary: 'Liveness: the process serves (no key, never touches an upstream)',
    tags: ['operations'],
    response: '{status: "ok"}',
    answers: 'Health',
  },
  'GET /ready': {
    summary: 'Readiness: database writable, catalog loaded, not draining; 503 names the failing part (no key)',
    tags: ['operations'],
    response: '{status, checks, failing, version, build, ...}',
    answers: 'Ready',
    alsoAnswers: { 503: { description: 'Not ready: the same object, `failing` naming the checks that fail', answers: 'Ready' } },
  },
};

/** The schema of a public route, by its method and full path; undefined for a route not in the table. */
export function publicRouteSchema(method: string, url: string): FastifySchema | undefined {
  const probe = unprefixed[`${method} ${url}`];
  if (probe !== undefined) {
    return routeSchema({ ...probe, docsOnly: true });
  }
  for (const prefix of PREFIXES) {
    if (!url.startsWith(`${prefix}/`)) continue;
    const doc = docs[`${method} ${url.slice(prefix.length)}`];
    if (doc === undefined) continue;
    return routeSchema({ ...doc, docsOnly: true });
  }
  return undefined;
}
