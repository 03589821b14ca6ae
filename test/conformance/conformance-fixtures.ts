// Requests and media the cases share.

import type { CanonicalRequest, Message, ToolDefinition, UserContentPart } from '../../src/canonical/request.ts';

export const WEATHER_TOOL: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export const TIME_TOOL: ToolDefinition = {
  name: 'get_time',
  description: 'Local time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
  required: ['city', 'temp_c'],
  additionalProperties: false,
};

/** A 1×1 red PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** The head of a PDF: enough to be recognised, carried as is. */
export const PDF_BASE64 = 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK';
/** An empty WAV file. */
export const WAV_BASE64 = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

/** A Gemini-style thought signature (standard base64, with `+`, `/` and padding). */
export const THOUGHT_SIGNATURE =
  'EpEgCo4gAb4+9vvWwdN+NkNiCCwrqvFI8uf9IiD2A47Bm4Sga0kUTm4e/QuEnsZnNuSXJaINVVvcoApg6YCzMYcXrBNlwWW71iY4l9+z60D5qPsZeG8VFWJoWwXF==';

/** The spec's provider-specific fields, as the chat decoder puts them in `extra`. */
export const PROVIDER_EXTRAS: Readonly<Record<string, unknown>> = {
  search_parameters: { mode: 'on', return_citations: true, max_search_results: 3 },
  deferred: false,
  safe_prompt: true,
  raw_mode: true,
  plugins: [{ id: 'web' }],
  transforms: ['middle-out'],
  verbosity: 'low',
  service_tier: 'flex',
  web_search_options: { search_context_size: 'low' },
  prediction: { type: 'content', content: 'Here' },
  mcp: { servers: [{ name: 'docs' }] },
};

export function user(...content: Array<string | UserContentPart>): Message {
  return { role: 'user', content: content.map((c) => (typeof c === 'string' ? { type: 'text', text: c } : c)) };
}

export function canonicalRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    models: [{ model: 'conformance/model' }],
    messages: [user('Say hello.')],
    sampling: {},
    stream: false,
    extra: {},
    ...overrides,
  };
}
