import type { CanonicalRequest, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { INTERLEAVED_THINKING_BETA, JSON_OBJECT_INSTRUCTION } from '../anthropic/convert-to-anthropic-request.ts';
import { planAnthropicOutput } from '../anthropic/plan-anthropic-thinking.ts';
import type { UpstreamRequest } from '../types.ts';
import type { ConverseCachePoint, ConverseMessage, ConverseRequestBody, ConverseTool, ConverseToolChoice } from './bedrock-wire-types.ts';
import { convertToConverseMessages } from './convert-to-converse-messages.ts';

/** Converse's temperature range is 0 to 1; the gateway's dialects allow up to 2. */
const MAX_TEMPERATURE = 1;
/** With thinking on, Claude accepts top_p only from 0.95 to 1. */
const MIN_TOP_P_WITH_THINKING = 0.95;

/** A Claude model on Bedrock: a model id, an inference profile (`us.anthropic…`) or an ARN naming one. */
export function isBedrockClaude(upstreamModel: string): boolean {
  return upstreamModel.includes('anthropic.claude');
}

/** `POST {base}/model/{modelId}/converse` (or `/converse-stream`); the model id is URL-encoded (it may be an ARN). */
export function convertToConverseRequest(req: CanonicalRequest, endpoint: Endpoint): UpstreamRequest {
  const provider = endpoint.provider;
  const body = buildConverseBody(req, endpoint);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: req.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  if (provider.headers !== undefined) Object.assign(headers, provider.headers);
  const base = provider.baseUrl.replace(/\/+$/, '');
  const url = `${base}/model/${encodeURIComponent(endpoint.upstreamModel)}/${req.stream ? 'converse-stream' : 'converse'}`;
  return { url, headers, body: JSON.stringify(body) };
}

export function buildConverseBody(req: CanonicalRequest, endpoint: Endpoint): ConverseRequestBody {
  const accepts = endpoint.supportedParameters;
  const claude = isBedrockClaude(endpoint.upstreamModel);
  const conversation = convertToConverseMessages(req.messages);
  const body: ConverseRequestBody = { messages: conversation.messages };
  const system = conversation.system;
  const format = accepts.has('response_format') ? req.responseFormat : undefined;
  if (format?.type === 'json_object') system.push({ text: JSON_OBJECT_INSTRUCTION });
  if (system.length > 0) body.system = system;

  const requestedMax = accepts.has('max_tokens') ? req.maxOutputTokens : undefined;
  const reasoning = claude && accepts.has('reasoning') && canThink(conversation.messages) ? req.reasoning : undefined;
  // Claude needs max_tokens above its thinking budget: Anthropic's own plan decides both.
  const plan = claude ? planAnthropicOutput(requestedMax, endpoint.maxOutputTokens, reasoning) : null;
  const thinking = plan !== null && plan.budget !== null;
  const additional: Record<string, unknown> = {};
  if (thinking) additional.thinking = { type: 'enabled', budget_tokens: plan.budget };

  const inference: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  const maxTokens = plan?.maxTokens ?? requestedMax;
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  const s = req.sampling;
  if (!thinking && s.temperature !== undefined && accepts.has('temperature'))
    inference.temperature = Math.min(s.temperature, MAX_TEMPERATURE);
  // Newer Claude models take temperature or top_p, not both; temperature is the one clients mean.
  const topPAllowed = !claude || (inference.temperature === undefined && (!thinking || (s.topP ?? 0) >= MIN_TOP_P_WITH_THINKING));
  if (s.topP !== undefined && accepts.has('top_p') && topPAllowed) inference.topP = s.topP;
  if (req.stop !== undefined && accepts.has('stop')) {
    const stops = req.stop.filter((seq) => seq.trim().length > 0);
    if (stops.length > 0) inference.stopSequences = stops;
  }
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  const wantsTools = req.tools !== undefined && req.tools.length > 0 && accepts.has('tools') && req.toolChoice?.type !== 'none';
  if (wantsTools) {
    const choice = convertToolChoice(accepts.has('tool_choice') ? req.toolChoice : undefined, thinking);
    body.toolConfig = { tools: toolsWithCachePoints(req.tools!) };
    if (choice !== undefined) body.toolConfig.toolChoice = choice;
    if (thinking) additional.anthropic_beta = [INTERLEAVED_THINKING_BETA];
  } else {
    // Converse refuses toolUse and toolResult blocks without a toolConfig: the tools the
    // history used are declared again, bare (the model is not asked to call any).
    const replayed = toolsOfHistory(conversation.messages);
    if (replayed !== null) body.toolConfig = { tools: replayed };
  }
  if (format?.type === 'json_schema') {
    const jsonSchema: { schema: string; name: string; description?: string } = { schema: JSON.stringify(format.schema), name: format.name };
    if (format.description !== undefined) jsonSchema.description = format.description;
    body.outputConfig = { textFormat: { type: 'json_schema', structure: { jsonSchema } } };
  }
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  return body;
}

function toolsWithCachePoints(tools: readonly ToolDefinition[]): Array<ConverseTool | ConverseCachePoint> {
  const out: Array<ConverseTool | ConverseCachePoint> = [];
  for (const tool of tools) {
    // Converse requires an object schema; clients that send no parameters mean "no arguments".
    const schema = tool.parameters.type === undefined ? { type: 'object', ...tool.parameters } : tool.parameters;
    const spec: ConverseTool['toolSpec'] = { name: tool.name, inputSchema: { json: schema } };
    if (tool.description !== undefined) spec.description = tool.description;
    out.push({ toolSpec: spec });
    if (tool.cacheControl !== undefined) out.push({ cachePoint: { type: 'default' } });
  }
  return out;
}

/** Forced choices are dropped under Claude's thinking (it rejects them): the model picks. */
function convertToolChoice(choice: ToolChoice | undefined, thinking: boolean): ConverseToolChoice | undefined {
  if (choice === undefined) return undefined;
  switch (choice.type) {
    case 'auto':
    case 'none':
      return { auto: {} };
    case 'required':
      return thinking ? { auto: {} } : { any: {} };
    case 'tool':
      return thinking ? { auto: {} } : { tool: { name: choice.name } };
    default:
      return assertNever(choice);
  }
}

function toolsOfHistory(messages: readonly ConverseMessage[]): ConverseTool[] | null {
  let tools: ConverseTool[] | null = null;
  for (const m of messages) {
    for (const b of m.content) {
      if (!('toolUse' in b)) continue;
      tools ??= [];
      if (!tools.some((t) => t.toolSpec.name === b.toolUse.name))
        tools.push({ toolSpec: { name: b.toolUse.name, inputSchema: { json: { type: 'object' } } } });
    }
  }
  return tools;
}

/**
 * With thinking on, Claude requires the last assistant turn of a tool loop to start with
 * its reasoning block; a history replayed without one (OpenAI chat drops them) goes
 * without thinking.
 */
function canThink(messages: readonly ConverseMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const first = m.content[0];
    if (first !== undefined && 'reasoningContent' in first) return true;
    return !m.content.some((b) => 'toolUse' in b);
  }
  return true;
}
