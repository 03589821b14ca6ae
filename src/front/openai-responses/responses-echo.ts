import type { CanonicalRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';

// A Response object repeats the request's settings (`instructions`, `tools`, `metadata`,
// `temperature`, ...). They are put in their wire shape once, when the request is decoded,
// and kept beside the canonical request they belong to (a WeakMap: gone with the request);
// the encoders copy them into every response object they write.

export interface ResponsesEcho {
  instructions: string | null;
  maxOutputTokens: number | null;
  metadata: Record<string, string>;
  parallelToolCalls: boolean;
  reasoningEffort: string | null;
  reasoningSummary: string | null;
  temperature: number | null;
  format: ResponseFormat | undefined;
  verbosity: string | null;
  toolChoice: ToolChoice | undefined;
  tools: ToolDefinition[] | undefined;
  topP: number | null;
  truncation: string;
  user: string | null;
}

/** The echoed fields in their wire shape, in the order a Response object lists them. */
export interface ResponsesEchoJson {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: string | null };
  store: false;
  background: false;
  temperature: number | null;
  text: { format: Record<string, unknown>; verbosity?: string };
  tool_choice: unknown;
  tools: Array<Record<string, unknown>>;
  top_p: number | null;
  truncation: string;
  user: string | null;
}

const echoes = new WeakMap<CanonicalRequest, ResponsesEchoJson>();

/** What a response says when it answers a request this module never saw (unit tests). */
const DEFAULT_ECHO = toJson({
  instructions: null,
  maxOutputTokens: null,
  metadata: {},
  parallelToolCalls: true,
  reasoningEffort: null,
  reasoningSummary: null,
  temperature: null,
  format: undefined,
  verbosity: null,
  toolChoice: undefined,
  tools: undefined,
  topP: null,
  truncation: 'disabled',
  user: null,
});

export function rememberEcho(req: CanonicalRequest, echo: ResponsesEcho): void {
  echoes.set(req, toJson(echo));
}

export function echoOf(req: CanonicalRequest | undefined): ResponsesEchoJson {
  return (req === undefined ? undefined : echoes.get(req)) ?? DEFAULT_ECHO;
}

function toJson(e: ResponsesEcho): ResponsesEchoJson {
  const text: ResponsesEchoJson['text'] = { format: e.format === undefined ? { type: 'text' } : formatJson(e.format) };
  if (e.verbosity !== null) text.verbosity = e.verbosity;
  return {
    instructions: e.instructions,
    max_output_tokens: e.maxOutputTokens,
    metadata: e.metadata,
    parallel_tool_calls: e.parallelToolCalls,
    previous_response_id: null,
    reasoning: { effort: e.reasoningEffort, summary: e.reasoningSummary },
    store: false,
    background: false,
    temperature: e.temperature,
    text,
    tool_choice: e.toolChoice === undefined ? 'auto' : toolChoiceJson(e.toolChoice),
    tools: e.tools === undefined ? [] : e.tools.map(toolJson),
    top_p: e.topP,
    truncation: e.truncation,
    user: e.user,
  };
}

function formatJson(f: ResponseFormat): Record<string, unknown> {
  if (f.type !== 'json_schema') return { type: f.type };
  const out: Record<string, unknown> = { type: 'json_schema', name: f.name, schema: f.schema, strict: f.strict ?? null };
  if (f.description !== undefined) out.description = f.description;
  return out;
}

function toolChoiceJson(c: ToolChoice): unknown {
  return c.type === 'tool' ? { type: 'function', name: c.name } : c.type;
}

function toolJson(t: ToolDefinition): Record<string, unknown> {
  return { type: 'function', name: t.name, description: t.description ?? null, parameters: t.parameters, strict: t.strict ?? null };
}
