import type { ReasoningConfig, ReasoningEffort, ResponseFormat, ToolDefinition } from '../../canonical/request.ts';
import type { SimConversation } from './read-sim-conversation.ts';
import { snippet } from './generate-sim-text.ts';
import { splitWords, takeWithinBudget } from './split-sim-chunks.ts';

const SENTENCES_BY_EFFORT: Record<ReasoningEffort, number> = { none: 0, minimal: 1, low: 2, medium: 4, high: 6, xhigh: 8, max: 10 };
/** A thinking budget buys about one sentence per this many tokens. */
const TOKENS_PER_SENTENCE = 200;
const MAX_SENTENCES = 12;

const FILLER = [
  'The same request must always get the same answer, so nothing here depends on chance.',
  'Sampling parameters such as temperature change nothing in the simulator.',
  'The answer has to stay within the token limit and stop at any stop sequence.',
  'There is nothing to look up: the simulator knows nothing beyond this conversation.',
  'Keeping the answer short keeps tests and benchmarks cheap.',
  'Usage is estimated from the text, the same way the gateway estimates prompts.',
  'Checking the plan once more before answering.',
  'That settles it.',
];

/** Reasoning is on when asked for at all, unless explicitly disabled. `exclude` still reasons. */
export function isSimReasoningOn(config: ReasoningConfig | undefined): boolean {
  return config !== undefined && config.enabled !== false && config.effort !== 'none';
}

/**
 * A few template sentences about the turn and the plan for answering it: more for higher
 * effort or a bigger thinking budget, and never more than the budget.
 */
export function generateSimReasoning(
  config: ReasoningConfig,
  conversation: SimConversation,
  calls: readonly ToolDefinition[],
  responseFormat: ResponseFormat | undefined,
): string {
  const count =
    config.maxTokens !== undefined
      ? Math.min(MAX_SENTENCES, Math.max(1, Math.ceil(config.maxTokens / TOKENS_PER_SENTENCE)))
      : SENTENCES_BY_EFFORT[config.effort ?? 'medium'];
  const sentences = [
    describeTurn(conversation),
    describePlan(conversation, calls, responseFormat),
    'I am the switchyard simulator, so this reasoning comes from a template rather than from thinking it through.',
  ];
  for (let i = 0; sentences.length < count; i++) sentences.push(FILLER[i % FILLER.length]!);
  const text = sentences.slice(0, count).join(' ');
  if (config.maxTokens === undefined) return text;
  const chunks = splitWords(text);
  return chunks.slice(0, takeWithinBudget(chunks, config.maxTokens).count).join('');
}

function describeTurn(conversation: SimConversation): string {
  const results = conversation.toolResults;
  if (results.length > 0) {
    const names = [...new Set(results.map((r) => r.name))].join(', ');
    return `The conversation ends with ${results.length === 1 ? 'a tool result' : `${results.length} tool results`} from ${names}, so I should report what came back.`;
  }
  const text = snippet(conversation.lastUserText, 80);
  return text === '' ? 'The user sent no text.' : `The user wrote "${text}".`;
}

function describePlan(conversation: SimConversation, calls: readonly ToolDefinition[], responseFormat: ResponseFormat | undefined): string {
  if (calls.length > 0) {
    const names = calls.map((c) => c.name).join(' and ');
    return `The request calls for ${names}, so I will call ${calls.length === 1 ? 'it' : 'them'} with arguments that fit the schema.`;
  }
  if (responseFormat?.type === 'json_schema')
    return 'The answer must be JSON that fits the requested schema, so I will build a value from it.';
  if (responseFormat?.type === 'json_object') return 'The answer must be a JSON object, so I will wrap the reply in one.';
  if (conversation.toolResults.length > 0) return 'A short account of the tool output will do.';
  return 'A short reply that repeats the message back will do.';
}
