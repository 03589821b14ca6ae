import { estimateTextTokens } from '../../canonical/estimate-tokens.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import { splitFragments, splitWords, takeWithinBudget, truncateToBudget } from './split-sim-chunks.ts';

export interface SimToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the simulator would say with no limits. */
export interface SimDraft {
  reasoning: string;
  text: string;
  toolCalls: SimToolCall[];
}

/** What it does say, cut into stream chunks, with the finish reason and token counts. */
export interface SimOutput {
  reasoningChunks: string[];
  /** False when the token limit cut the reasoning short (no signature then). */
  reasoningComplete: boolean;
  textChunks: string[];
  toolCalls: Array<{ id: string; name: string; fragments: string[] }>;
  finish: FinishReason;
  reasoningTokens: number;
  outputTokens: number;
}

/** Tool-call arguments stream in this many fragments at most. */
const ARGUMENT_FRAGMENTS = 3;

export function estimateDraftTokens(draft: SimDraft): number {
  let tokens = estimateTextTokens(draft.reasoning) + estimateTextTokens(draft.text);
  for (const call of draft.toolCalls) tokens += estimateTextTokens(call.name) + estimateTextTokens(call.arguments);
  return tokens;
}

/**
 * Applies the stop sequences and the output token budget the way a model meets them while
 * generating: reasoning first, then the text, then the tool calls, whichever limit comes
 * first wins. Stop sequences apply to the text only. Running out of tokens cuts mid-way,
 * even inside tool-call arguments (invalid JSON, as a real truncated call), and finishes
 * with `length`.
 */
export function limitSimOutput(draft: SimDraft, stop: readonly string[] | undefined, budget: number): SimOutput {
  const out: SimOutput = {
    reasoningChunks: [],
    reasoningComplete: true,
    textChunks: [],
    toolCalls: [],
    finish: { unified: 'stop', raw: 'stop' },
    reasoningTokens: 0,
    outputTokens: 0,
  };
  let left = budget;

  const reasoning = splitWords(draft.reasoning);
  const keptReasoning = takeWithinBudget(reasoning, left);
  out.reasoningChunks = reasoning.slice(0, keptReasoning.count);
  out.reasoningTokens = keptReasoning.tokens;
  out.outputTokens = keptReasoning.tokens;
  left -= keptReasoning.tokens;
  if (keptReasoning.count < reasoning.length) {
    out.reasoningComplete = false;
    return finishWithLength(out);
  }

  const stopped = cutAtStop(draft.text, stop);
  const text = splitWords(stopped.text);
  const keptText = takeWithinBudget(text, left);
  out.textChunks = text.slice(0, keptText.count);
  left -= keptText.tokens;
  out.outputTokens += keptText.tokens;
  if (keptText.count < text.length) return finishWithLength(out);

  for (const call of draft.toolCalls) {
    const nameTokens = estimateTextTokens(call.name);
    const argumentTokens = estimateTextTokens(call.arguments);
    if (nameTokens + argumentTokens <= left) {
      out.toolCalls.push({ id: call.id, name: call.name, fragments: splitFragments(call.arguments, ARGUMENT_FRAGMENTS) });
      left -= nameTokens + argumentTokens;
      out.outputTokens += nameTokens + argumentTokens;
      continue;
    }
    if (nameTokens < left) {
      const cut = truncateToBudget(call.arguments, left - nameTokens);
      out.toolCalls.push({ id: call.id, name: call.name, fragments: splitFragments(cut.text, ARGUMENT_FRAGMENTS) });
      out.outputTokens += nameTokens + cut.tokens;
    }
    return finishWithLength(out);
  }

  if (out.toolCalls.length > 0) out.finish = { unified: 'tool_calls', raw: 'tool_calls' };
  else if (stopped.sequence !== undefined) out.finish = { unified: 'stop', raw: 'stop', stopSequence: stopped.sequence };
  return out;
}

function finishWithLength(out: SimOutput): SimOutput {
  out.finish = { unified: 'length', raw: 'length' };
  return out;
}

/** The text up to the earliest stop sequence; at equal positions the first listed wins. */
function cutAtStop(text: string, stop: readonly string[] | undefined): { text: string; sequence?: string } {
  if (stop === undefined || stop.length === 0) return { text };
  let at = -1;
  let sequence: string | undefined;
  for (const candidate of stop) {
    if (candidate.length === 0) continue;
    const i = text.indexOf(candidate);
    if (i !== -1 && (at === -1 || i < at)) {
      at = i;
      sequence = candidate;
    }
  }
  return sequence === undefined ? { text } : { text: text.slice(0, at), sequence };
}
