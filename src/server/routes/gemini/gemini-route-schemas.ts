import type { FastifySchema } from 'fastify';
import { routeSchema } from '../admin/route-schema.ts';

// The OpenAPI descriptions of the Gemini routes (documentation only: the Gemini dialect
// validates its own bodies and answers errors in Google's shape).

const generateBody = {
  type: 'object',
  additionalProperties: true,
  description:
    'A Gemini GenerateContentRequest (docs/gemini-api.md): contents, systemInstruction, tools, toolConfig, generationConfig, safetySettings; countTokens also takes {generateContentRequest}.',
  properties: { contents: { type: 'array', items: { type: 'object', additionalProperties: true } } },
};

export const GEMINI_METHOD_SCHEMA: FastifySchema = routeSchema({
  summary:
    "Gemini's API for every model: {model}:generateContent, :streamGenerateContent (SSE with alt=sse, else a JSON array), :countTokens",
  tags: ['models'],
  query: { alt: "'sse' streams as server-sent events", key: 'The API key (also x-goog-api-key or Authorization: Bearer)' },
  body: generateBody,
  response: 'A GenerateContentResponse, a stream of them, or {totalTokens}',
  produces: {
    'application/json': { $ref: 'GeminiAnswer#' },
    'text/event-stream': { type: 'string', description: 'alt=sse: `data: <GenerateContentResponse>` events.' },
  },
  docsOnly: true,
  errors: 'GoogleError',
});

export const GEMINI_LIST_SCHEMA: FastifySchema = routeSchema({
  summary: "The model list in Gemini's shape (models/<id>, token limits, supportedGenerationMethods)",
  tags: ['models'],
  query: {
    pageSize: { type: 'integer', minimum: 1, maximum: 1000, description: 'Models per page (default 50, at most 1000)' },
    pageToken: 'The nextPageToken of the previous page',
  },
  response: '{models: [Model], nextPageToken?}',
  answers: 'GeminiModelList',
  docsOnly: true,
  errors: 'GoogleError',
});

export const GEMINI_MODEL_SCHEMA: FastifySchema = routeSchema({
  summary: "One model in Gemini's shape, by catalog id (slash as is or %2F), alias or bare name",
  tags: ['models'],
  response: 'A Gemini Model',
  answers: 'GeminiModel',
  docsOnly: true,
  errors: 'GoogleError',
});
